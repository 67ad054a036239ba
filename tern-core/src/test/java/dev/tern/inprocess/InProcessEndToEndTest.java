package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A real channel and server, built with the in-process builders, talking to each other. */
class InProcessEndToEndTest {
  /** Passes byte arrays through unchanged. */
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
  private static final Metadata.Key<String> SEEN_BY =
      Metadata.Key.of("seen-by", Metadata.ASCII_STRING_MARSHALLER);

  private final String name = InProcessServerBuilder.generateName();
  private Server server;
  private ManagedChannel channel;

  /** Replies with the request plus "!". */
  private ServerServiceDefinition echoService() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(
            ECHO,
            (ServerCall<byte[], byte[]> call, Metadata headers) -> {
              call.request(1);
              return new ServerCall.Listener<byte[]>() {
                @Override
                public void onMessage(byte[] message) {
                  String text = new String(message, StandardCharsets.UTF_8);
                  Metadata responseHeaders = new Metadata();
                  responseHeaders.put(SEEN_BY, "echo");
                  call.sendHeaders(responseHeaders);
                  call.sendMessage((text + "!").getBytes(StandardCharsets.UTF_8));
                  call.close(Status.OK, new Metadata());
                }
              };
            })
        .build();
  }

  private void startServer(InProcessServerBuilder builder) throws IOException {
    server = builder.directExecutor().addService(echoService()).build().start();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** The outcome of one unary call. */
  private static final class Result {
    final CompletableFuture<Status> status = new CompletableFuture<>();
    volatile String response;
    volatile Metadata headers;
  }

  private Result call(String request, CallOptions options) {
    Result result = new Result();
    ClientCall<byte[], byte[]> call = channel.newCall(ECHO, options);
    call.start(
        new ClientCall.Listener<byte[]>() {
          @Override
          public void onHeaders(Metadata headers) {
            result.headers = headers;
          }

          @Override
          public void onMessage(byte[] message) {
            result.response = new String(message, StandardCharsets.UTF_8);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            result.status.complete(status);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(request.getBytes(StandardCharsets.UTF_8));
    call.halfClose();
    return result;
  }

  private static Status statusOf(Result result) throws Exception {
    return result.status.get(5, TimeUnit.SECONDS);
  }

  @Test
  void keepaliveOptionsAreAcceptedAndChangeNothing() throws Exception {
    startServer(InProcessServerBuilder.forName(name));
    channel =
        ManagedChannelBuilder.forTarget("inprocess:" + name)
            .keepAliveTime(1, TimeUnit.NANOSECONDS)
            .keepAliveTimeout(1, TimeUnit.NANOSECONDS)
            .keepAliveWithoutCalls(true)
            .directExecutor()
            .build();

    Result result = call("still there?", CallOptions.DEFAULT);

    assertThat(statusOf(result).isOk()).isTrue();
    assertThat(result.response).isEqualTo("still there?!");
  }

  @Test
  void callsToAnUnknownNameFailUnavailable() throws Exception {
    channel = InProcessChannelBuilder.forName("nobody-" + name).directExecutor().build();

    Status status = statusOf(call("anyone?", CallOptions.DEFAULT));

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).contains("Could not find server: nobody-" + name);
  }

  @Test
  void aSecondServerUnderTheSameNameFailsToStart() throws Exception {
    startServer(InProcessServerBuilder.forName(name));
    Server second = InProcessServerBuilder.forName(name).addService(echoService()).build();

    assertThatThrownBy(second::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("name already registered: " + name);
  }

  @Test
  void serverListensOnItsName() throws Exception {
    startServer(InProcessServerBuilder.forAddress(new InProcessSocketAddress(name)));

    List<SocketAddress> addresses = List.copyOf(server.getListenSockets());
    assertThat(addresses).containsExactly(new InProcessSocketAddress(name));
  }

  @Test
  void generatedNamesAreUnique() {
    assertThat(InProcessServerBuilder.generateName())
        .isNotEqualTo(InProcessServerBuilder.generateName());
  }

  @Test
  void providerAcceptsOnlyInprocessTargets() {
    InProcessChannelProvider provider = new InProcessChannelProvider();

    assertThat(provider.builderForTarget("inprocess:x"))
        .isInstanceOf(InProcessChannelBuilder.class);
    assertThat(provider.builderForTarget("dns:///example.com:443")).isNull();
    assertThat(provider.builderForTarget("example.com:443")).isNull();
    assertThat(provider.builderForAddress("localhost", 80)).isNull();
    assertThat(provider.priority()).isEqualTo(5);
    assertThat(provider.isAvailable()).isTrue();
    assertThatThrownBy(() -> provider.builderForTarget("inprocess:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be empty");
  }
}
