package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Channel credentials with call credentials: {@code Grpc.newChannelBuilder} finds a transport for
 * the channel part and applies the call part to every call, before a call's own.
 */
class CompositeChannelCredentialsTest {
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };
  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.newBuilder(BYTES, BYTES)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("test.Echo/Echo")
          .build();
  private static final Metadata.Key<String> TOKEN =
      Metadata.Key.of("token", Metadata.ASCII_STRING_MARSHALLER);

  private final String name = InProcessServerBuilder.generateName();
  private final BlockingQueue<List<String>> tokens = new LinkedBlockingQueue<>();
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void shutDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private void start() throws IOException {
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                ServerServiceDefinition.builder("test.Echo")
                    .addMethod(
                        ECHO,
                        (ServerCall<byte[], byte[]> call, Metadata headers) -> {
                          Iterable<String> all = headers.getAll(TOKEN);
                          tokens.add(all == null ? List.of() : listOf(all));
                          call.request(1);
                          return new ServerCall.Listener<byte[]>() {
                            @Override
                            public void onMessage(byte[] message) {
                              call.sendHeaders(new Metadata());
                              call.sendMessage(message);
                              call.close(Status.OK, new Metadata());
                            }
                          };
                        })
                    .build())
            .build()
            .start();
  }

  private static List<String> listOf(Iterable<String> values) {
    List<String> out = new java.util.ArrayList<>();
    values.forEach(out::add);
    return out;
  }

  /** Adds {@code token: value}, or fails the call if {@code value} is null. */
  private static CallCredentials token(String value) {
    return new CallCredentials() {
      @Override
      public void applyRequestMetadata(
          RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
        if (value == null) {
          applier.fail(Status.UNAUTHENTICATED.withDescription("no token"));
          return;
        }
        Metadata headers = new Metadata();
        headers.put(TOKEN, value);
        applier.apply(headers);
      }
    };
  }

  private byte[] call(CallOptions options) {
    return ClientCalls.blockingUnaryCall(
        channel, ECHO, options.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {1});
  }

  @Test
  void channelCallCredentialsApplyToEveryCallBeforeTheCallsOwn() throws Exception {
    start();
    channel =
        Grpc.newChannelBuilder(
                "inprocess:" + name,
                CompositeChannelCredentials.create(
                    InsecureChannelCredentials.create(), token("from-channel")))
            .build();
    call(CallOptions.DEFAULT);
    assertThat(tokens.poll(5, TimeUnit.SECONDS)).containsExactly("from-channel");
    call(CallOptions.DEFAULT.withCallCredentials(token("from-call")));
    assertThat(tokens.poll(5, TimeUnit.SECONDS)).containsExactly("from-channel", "from-call");
    assertThatThrownBy(() -> call(CallOptions.DEFAULT.withCallCredentials(token(null))))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
              assertThat(e.getStatus().getDescription()).isEqualTo("no token");
            });
    assertThat(tokens).isEmpty();
  }

  @Test
  void theChannelPartChoosesTheTransport() {
    CompositeChannelCredentials tls =
        CompositeChannelCredentials.create(TlsChannelCredentials.create(), token("t"));
    assertThatThrownBy(() -> Grpc.newChannelBuilder("inprocess:" + name, tls))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("No channel transport accepts TlsChannelCredentials")
        .hasMessageContaining("the in-process transport has no TLS");
    assertThatThrownBy(() -> CompositeChannelCredentials.create(tls, token("u")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("channelCredentials must not be composite");
    assertThat(tls.toString())
        .isEqualTo(
            "CompositeChannelCredentials[TlsChannelCredentials[key: none, trust: JDK default CAs]"
                + " + call credentials]");
  }
}
