package dev.tern.http3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ClientInterceptors;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.stub.StreamObserver;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.TestPems;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tern's channel over HTTP/3 ({@code NettyChannelBuilder.enableHttp3()}) to Tern's server over
 * HTTP/3: every call type, metadata both ways, and the build-time errors of a channel that cannot
 * use HTTP/3.
 */
class Http3ClientTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  private TestPems pems;
  private Server server;

  @BeforeEach
  void startServer() throws Exception {
    pems = TestPems.generate("localhost", "dns:localhost,ip:127.0.0.1");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    server =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .useTransportSecurity(cert.toFile(), key.toFile())
                .enableHttp3()
                .addService(EchoService.definition())
                .build()
                .start());
  }

  private TlsChannelCredentials trust() throws Exception {
    return TlsChannelCredentials.newBuilder()
        .trustManager(
            new ByteArrayInputStream(pems.certificatePem.getBytes(StandardCharsets.US_ASCII)))
        .build();
  }

  private ManagedChannel channel() throws Exception {
    return cleanup.register(
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .tlsCredentials(trust())
            .enableHttp3()
            .build());
  }

  @Test
  void unaryCallOverHttp3() throws Exception {
    ManagedChannel channel = channel();
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi");
    // Calls share the connection.
    assertThat(
            ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "again"))
        .isEqualTo("again");
  }

  @Test
  void streamingCallsOverHttp3() throws Exception {
    ManagedChannel channel = channel();
    List<String> out = new ArrayList<>();
    Iterator<String> it =
        ClientCalls.blockingServerStreamingCall(
            channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, "3");
    it.forEachRemaining(out::add);
    assertThat(out).containsExactly("0", "1", "2");
  }

  @Test
  void callsBeyondTheServersStreamLimitWaitForAStream() throws Exception {
    Server limited =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .useTransportSecurity(
                    dir.resolve("cert.pem").toFile(), dir.resolve("key.pem").toFile())
                .enableHttp3()
                .maxConcurrentCallsPerConnection(2)
                .addService(EchoService.definition())
                .build()
                .start());
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", limited.getPort())
                .tlsCredentials(trust())
                .enableHttp3()
                .build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "up"))
        .isEqualTo("up");
    List<StreamObserver<String>> requests = new ArrayList<>();
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<String> answer = new CompletableFuture<>();
      answers.add(answer);
      requests.add(
          ClientCalls.asyncClientStreamingCall(
              channel.newCall(
                  EchoService.CLIENT_STREAMING,
                  CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
              new StreamObserver<String>() {
                @Override
                public void onNext(String value) {
                  answer.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                  answer.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {}
              }));
    }
    for (int i = 0; i < 5; i++) {
      requests.get(i).onNext("call " + i);
    }

    // The server allows two streams at once: the first two calls hold them until they end, and
    // the other three wait for QUIC to allow more streams instead of failing.
    for (StreamObserver<String> request : requests) {
      request.onCompleted();
    }

    for (int i = 0; i < 5; i++) {
      assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("call " + i);
    }
  }

  @Test
  void metadataBothWays() throws Exception {
    Metadata.Key<String> initial =
        Metadata.Key.of(EchoService.ECHO_INITIAL_PREFIX + "a", Metadata.ASCII_STRING_MARSHALLER);
    Metadata.Key<byte[]> trailing =
        Metadata.Key.of(
            EchoService.ECHO_TRAILING_PREFIX + "b-bin", Metadata.BINARY_BYTE_MARSHALLER);
    Metadata sent = new Metadata();
    sent.put(initial, "one");
    sent.put(trailing, new byte[] {0, 1, (byte) 0xff});
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    String answer =
        ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(
                channel(),
                MetadataUtils.newAttachHeadersInterceptor(sent),
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)),
            EchoService.UNARY,
            CallOptions.DEFAULT,
            "m");
    assertThat(answer).isEqualTo("m");
    assertThat(headers.get().get(initial)).isEqualTo("one");
    assertThat(trailers.get().get(trailing)).containsExactly(0, 1, 0xff);
  }

  @Test
  void aServerErrorArrivesAsItsStatus() throws Exception {
    // A server-streaming call with a non-number fails on the server: Trailers-Only.
    Iterator<String> it =
        ClientCalls.blockingServerStreamingCall(
            channel(),
            EchoService.SERVER_STREAMING,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
            "not a number");
    assertThatThrownBy(it::hasNext)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isNotEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void theProviderGivesHttp3ItsTrust() throws Exception {
    NettyChannelBuilder builder =
        (NettyChannelBuilder)
            Grpc.newChannelBuilderForAddress("127.0.0.1", server.getPort(), trust());
    ManagedChannel channel = cleanup.register(builder.enableHttp3().build());
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "p"))
        .isEqualTo("p");
  }

  @Test
  void anH3TargetCallsOverHttp3FromTheStart() throws Exception {
    Metadata.Key<String> altSvc = Metadata.Key.of("alt-svc", Metadata.ASCII_STRING_MARSHALLER);
    for (String target :
        List.of("h3://127.0.0.1:" + server.getPort(), "h3:///127.0.0.1:" + server.getPort())) {
      ManagedChannel channel = cleanup.register(Grpc.newChannelBuilder(target, trust()).build());
      AtomicReference<Metadata> headers = new AtomicReference<>();
      String answer =
          ClientCalls.blockingUnaryCall(
              ClientInterceptors.intercept(
                  channel,
                  MetadataUtils.newCaptureMetadataInterceptor(headers, new AtomicReference<>())),
              EchoService.UNARY,
              CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
              "h3");
      assertThat(answer).isEqualTo("h3");
      // The server advertises HTTP/3 on its HTTP/2 responses only: the first call was HTTP/3.
      assertThat(headers.get().get(altSvc)).as(target).isNull();
    }
  }

  @Test
  void anH3TargetWithoutAHostFailsTheBuild() throws Exception {
    assertThatThrownBy(() -> Grpc.newChannelBuilder("h3://", trust()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dns:///");
  }

  /** Both ways of asking for HTTP/3 fail UNAVAILABLE without it, never falling back to HTTP/2. */
  @Test
  void aServerWithoutHttp3FailsTheCallUnavailable() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Server tcpOnly =
        cleanup.register(
            NettyServerBuilder.forPort(0)
                .useTransportSecurity(cert.toFile(), key.toFile())
                .addService(EchoService.definition())
                .build()
                .start());
    NettyChannelBuilder byOption =
        NettyChannelBuilder.forAddress("127.0.0.1", tcpOnly.getPort())
            .tlsCredentials(trust())
            .enableHttp3();
    NettyChannelBuilder byTarget =
        (NettyChannelBuilder)
            Grpc.newChannelBuilder("h3://127.0.0.1:" + tcpOnly.getPort(), trust());
    for (NettyChannelBuilder builder : List.of(byOption, byTarget)) {
      ManagedChannel channel =
          cleanup.register(builder.connectTimeout(1, TimeUnit.SECONDS).build());
      assertThatThrownBy(
              () ->
                  ClientCalls.blockingUnaryCall(
                      channel,
                      EchoService.UNARY,
                      CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                      "x"))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).contains("HTTP/3");
              });
    }
  }

  @Test
  void responseMetadataOverTheChannelsLimitFailsResourceExhausted() throws Exception {
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .tlsCredentials(trust())
                .enableHttp3()
                .maxInboundMetadataSize(1024)
                .build());
    Metadata big = new Metadata();
    big.put(
        Metadata.Key.of(EchoService.ECHO_INITIAL_PREFIX + "big", Metadata.ASCII_STRING_MARSHALLER),
        "x".repeat(4096));
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    ClientInterceptors.intercept(
                        channel, MetadataUtils.newAttachHeadersInterceptor(big)),
                    EchoService.UNARY,
                    CallOptions.DEFAULT,
                    "m"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription()).contains("larger than 1024 bytes");
            });
    // The connection is still good for the next call.
    assertThat(ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "ok"))
        .isEqualTo("ok");
  }

  @Test
  void aResponseMessageOverTheChannelsLimitFailsResourceExhausted() throws Exception {
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .tlsCredentials(trust())
                .enableHttp3()
                .maxInboundMessageSize(10)
                .build());
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, EchoService.UNARY, CallOptions.DEFAULT, "more than ten bytes"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void http3NeedsTlsFromCredentials() {
    assertThatThrownBy(
            () ->
                NettyChannelBuilder.forAddress("127.0.0.1", 1).usePlaintext().enableHttp3().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs TLS");
    assertThatThrownBy(
            () ->
                NettyChannelBuilder.forAddress("127.0.0.1", 1)
                    .sslContext(NettySslContexts.forClient().trustManager(pems.certificate).build())
                    .enableHttp3()
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not an SslContext");
  }
}
