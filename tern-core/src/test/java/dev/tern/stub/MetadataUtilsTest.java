package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptors;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class MetadataUtilsTest {
  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER);

  private final FakeChannel channel = new FakeChannel();

  @Test
  void attachHeadersInterceptor_addsACopyOfTheHeadersToEveryCall() throws Exception {
    Metadata extra = new Metadata();
    extra.put(TOKEN, "secret");
    Channel intercepted =
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(extra));
    extra.put(TOKEN, "added later"); // must not leak into calls
    channel.respondOnHalfClose(call -> call.respond("ok"));

    ClientCalls.blockingUnaryCall(
        intercepted, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "a");
    ClientCalls.blockingUnaryCall(
        intercepted, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "b");

    for (int i = 0; i < 2; i++) {
      assertThat(channel.takeCall().headers.getAll(TOKEN)).containsExactly("secret");
    }
  }

  @Test
  void captureMetadataInterceptor_recordsHeadersAndTrailers() throws Exception {
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    Channel intercepted =
        ClientInterceptors.intercept(
            channel, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    Metadata sentHeaders = new Metadata();
    sentHeaders.put(TOKEN, "h");
    Metadata sentTrailers = new Metadata();
    sentTrailers.put(TOKEN, "t");
    channel.respondOnHalfClose(
        call -> {
          call.deliverHeaders(sentHeaders);
          call.deliverClose(Status.ABORTED, sentTrailers);
        });

    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    intercepted, StringMarshaller.method(UNARY), CallOptions.DEFAULT, "a"))
        .isInstanceOf(StatusRuntimeException.class);

    assertThat(headers.get().get(TOKEN)).isEqualTo("h");
    assertThat(trailers.get().get(TOKEN)).isEqualTo("t");
  }

  @Test
  void nullArguments_areNamed() {
    assertThatThrownBy(() -> MetadataUtils.newAttachHeadersInterceptor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("extraHeaders");
    assertThatThrownBy(
            () -> MetadataUtils.newCaptureMetadataInterceptor(new AtomicReference<>(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("trailersCapture");
  }
}
