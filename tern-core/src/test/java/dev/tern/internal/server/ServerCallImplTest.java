package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.echoService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.Status;
import dev.tern.internal.server.ServerTestSupport.RecordingHandler;
import dev.tern.internal.wire.GrpcHeaders;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a handler can do with its {@link ServerCall}, and what reaches the stream. */
class ServerCallImplTest {
  private static final Metadata.Key<String> CUSTOM =
      Metadata.Key.of("x-custom", Metadata.ASCII_STRING_MARSHALLER);

  private final RecordingHandler handler = new RecordingHandler();
  private FakeServerTransport transport;

  @BeforeEach
  void startServer() throws IOException {
    FakeServerBuilder builder = new FakeServerBuilder().directExecutor();
    builder.addService(echoService(handler)).build().start();
    transport = builder.transportServer.accept();
    transport.ready(Attributes.EMPTY);
  }

  private ServerCall<String, String> newCall(String method, Metadata headers) {
    transport.newStream(method, headers);
    return handler.lastCall();
  }

  private ServerCall<String, String> newUnaryCall() {
    return newCall("test.Echo/Unary", new Metadata());
  }

  private FakeServerStream lastStream() {
    return transport.streams.get(transport.streams.size() - 1);
  }

  @Test
  void request_passesTheCountToTheStreamAndRejectsNegatives() {
    ServerCall<String, String> call = newUnaryCall();
    call.request(4);

    assertThat(lastStream().requested).isEqualTo(1 + 4); // the handler's own request(1) + 4
    assertThatThrownBy(() -> call.request(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
  }

  @Test
  void aSingleResponseIsNotFlushedBeforeTheCallCloses() {
    ServerCall<String, String> call = newUnaryCall();

    call.sendMessage("only");

    FakeServerStream stream = lastStream();
    assertThat(stream.headersFlushed).as("unary headers wait for the response").isFalse();
    assertThat(stream.writtenMessages).containsExactly("only");
    assertThat(stream.flushes).isZero();
    call.close(Status.OK, new Metadata());
    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void sendMessage_sendsEmptyHeadersFirstThenWritesAndFlushesEachMessage() {
    ServerCall<String, String> call = newCall("test.Echo/Bidi", new Metadata());

    call.sendMessage("one");
    call.sendMessage("two");

    FakeServerStream stream = lastStream();
    assertThat(stream.writtenHeaders).isNotNull();
    assertThat(stream.writtenHeaders.containsKey(CUSTOM)).isFalse();
    assertThat(stream.writtenMessages).containsExactly("one", "two");
    assertThat(stream.flushes).isEqualTo(2);
  }

  @Test
  void sendHeaders_flushesForStreamingResponsesOnly() {
    newUnaryCall().sendHeaders(new Metadata());
    FakeServerStream unary = lastStream();
    newCall("test.Echo/Bidi", new Metadata()).sendHeaders(new Metadata());
    FakeServerStream bidi = lastStream();

    assertThat(unary.headersFlushed).isFalse();
    assertThat(bidi.headersFlushed).isTrue();
  }

  @Test
  void sendHeadersTwice_throwsIllegalState() {
    ServerCall<String, String> call = newUnaryCall();
    call.sendHeaders(new Metadata());

    assertThatThrownBy(() -> call.sendHeaders(new Metadata()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sendHeaders");
  }

  @Test
  void closeTwice_throwsIllegalState_andSendAfterCloseSaysCallIsClosed() {
    ServerCall<String, String> call = newUnaryCall();
    call.close(Status.OK, new Metadata());

    assertThatThrownBy(() -> call.close(Status.OK, new Metadata()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already closed");
    assertThatThrownBy(() -> call.sendMessage("late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("call is closed");
    assertThatThrownBy(() -> call.sendHeaders(new Metadata()))
        .isInstanceOf(IllegalStateException.class);
    assertThat(lastStream().writtenMessages).isEmpty();
  }

  @Test
  void close_stripsReservedKeysFromUserTrailersAndKeepsTheRest() {
    ServerCall<String, String> call = newUnaryCall();
    Metadata trailers = new Metadata();
    trailers.put(GrpcHeaders.STATUS, "0");
    trailers.put(GrpcHeaders.MESSAGE, "fake");
    trailers.put(GrpcHeaders.MESSAGE_ENCODING, "gzip");
    trailers.put(CUSTOM, "kept");

    call.close(Status.NOT_FOUND.withDescription("no such thing"), trailers);

    FakeServerStream stream = lastStream();
    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(stream.closeTrailers.keys()).containsExactly("x-custom");
  }

  @Test
  void sendHeaders_replacesReservedKeysAndAdvertisesWhatTheServerAccepts() {
    ServerCall<String, String> call = newUnaryCall();
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.MESSAGE_ENCODING, "made-up");
    headers.put(CUSTOM, "v");

    call.sendHeaders(headers);

    Metadata written = lastStream().writtenHeaders;
    assertThat(written.get(GrpcHeaders.MESSAGE_ENCODING)).isNull();
    assertThat(written.get(GrpcHeaders.MESSAGE_ACCEPT_ENCODING)).isEqualTo("gzip,identity");
    assertThat(written.get(CUSTOM)).isEqualTo("v");
  }

  @Test
  void setCompression_compressesWhenTheClientAcceptsTheEncoding() {
    Metadata request = new Metadata();
    request.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, "deflate, gzip");
    ServerCall<String, String> call = newCall("test.Echo/Unary", request);

    call.setCompression("gzip");
    call.sendMessage("compressed");

    FakeServerStream stream = lastStream();
    assertThat(stream.writtenHeaders.get(GrpcHeaders.MESSAGE_ENCODING)).isEqualTo("gzip");
    assertThat(stream.compressor.getMessageEncoding()).isEqualTo("gzip");
  }

  @Test
  void setCompression_doesNotCompressWhenTheClientDidNotAdvertiseIt() {
    Metadata request = new Metadata();
    request.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, "identity,gzipx");
    ServerCall<String, String> withoutGzip = newCall("test.Echo/Unary", request);
    withoutGzip.setCompression("gzip");
    withoutGzip.sendHeaders(new Metadata());
    FakeServerStream first = lastStream();

    ServerCall<String, String> noHeader = newUnaryCall();
    noHeader.setCompression("gzip");
    noHeader.sendHeaders(new Metadata());
    FakeServerStream second = lastStream();

    assertThat(first.writtenHeaders.get(GrpcHeaders.MESSAGE_ENCODING)).isNull();
    assertThat(first.compressor).isNull();
    assertThat(second.writtenHeaders.get(GrpcHeaders.MESSAGE_ENCODING)).isNull();
    assertThat(second.compressor).isNull();
  }

  @Test
  void noSetCompression_meansNoCompressionEvenIfTheClientAcceptsGzip() {
    Metadata request = new Metadata();
    request.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, "gzip");
    newCall("test.Echo/Unary", request).sendHeaders(new Metadata());

    assertThat(lastStream().writtenHeaders.get(GrpcHeaders.MESSAGE_ENCODING)).isNull();
    assertThat(lastStream().compressor).isNull();
  }

  @Test
  void setCompression_rejectsUnknownNamesAndLateCalls() {
    ServerCall<String, String> call = newUnaryCall();

    assertThatThrownBy(() -> call.setCompression("brotli"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("brotli");
    call.sendHeaders(new Metadata());
    assertThatThrownBy(() -> call.setCompression("gzip")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void setMessageCompression_reachesTheStream() {
    ServerCall<String, String> call = newUnaryCall();

    call.setMessageCompression(false);

    assertThat(lastStream().messageCompression).isFalse();
  }

  @Test
  void afterCancellation_sendsAreIgnoredSilentlyAndCloseWritesNothing() {
    ServerCall<String, String> call = newCall("test.Echo/Bidi", new Metadata());
    FakeServerStream stream = lastStream();
    stream.reportClosed(Status.CANCELLED);

    assertThat(call.isCancelled()).isTrue();
    assertThat(call.isReady()).isFalse();
    call.sendMessage("ignored");
    call.close(Status.OK, new Metadata());

    assertThat(stream.writtenMessages).isEmpty();
    assertThat(stream.closeStatus).isNull();
  }

  @Test
  void isReady_followsTheStreamUntilClosed() {
    ServerCall<String, String> call = newCall("test.Echo/Bidi", new Metadata());
    FakeServerStream stream = lastStream();

    assertThat(call.isReady()).isTrue();
    stream.ready = false;
    assertThat(call.isReady()).isFalse();
    stream.ready = true;
    call.close(Status.OK, new Metadata());
    assertThat(call.isReady()).isFalse();
  }

  @Test
  void attributesAuthorityAndMethod_comeFromTheStreamAndTheMethodMap() {
    Attributes.Key<String> zone = Attributes.Key.create("zone");
    transport.readyAttributes = Attributes.newBuilder().set(zone, "eu-1").build();
    transport.newStream("test.Echo/Unary", new Metadata(), "svc.example.com:8443");
    ServerCall<String, String> call = handler.lastCall();

    assertThat(call.getAttributes().get(zone)).isEqualTo("eu-1");
    assertThat(call.getAuthority()).isEqualTo("svc.example.com:8443");
    assertThat(call.getMethodDescriptor()).isSameAs(ServerTestSupport.UNARY);
  }

  @Test
  void serializationFailure_closesInternalAndRethrows() {
    ServerCall<String, String> call = newCall("test.Echo/Bidi", new Metadata());

    assertThatThrownBy(() -> call.sendMessage(null)).isInstanceOf(NullPointerException.class);

    assertThat(lastStream().closeStatus.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(lastStream().closeStatus.getDescription()).isEqualTo("Failed to serialize response");
  }

  @Test
  void acceptsEncoding_matchesWholeTokensIgnoringSpaces() {
    assertThat(ServerCallImpl.acceptsEncoding("gzip", "gzip")).isTrue();
    assertThat(ServerCallImpl.acceptsEncoding(" identity ,\tgzip ", "gzip")).isTrue();
    assertThat(ServerCallImpl.acceptsEncoding("gzipx,xgzip", "gzip")).isFalse();
    assertThat(ServerCallImpl.acceptsEncoding("", "gzip")).isFalse();
    assertThat(ServerCallImpl.acceptsEncoding(",,", "gzip")).isFalse();
    assertThat(ServerCallImpl.acceptsEncoding(null, "gzip")).isFalse();
  }
}
