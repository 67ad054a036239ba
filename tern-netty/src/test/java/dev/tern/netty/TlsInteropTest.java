package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Grpc;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS between Tern's credentials and grpc-java's (1.79, a test peer): the same PEM files on
 * both sides, client authentication required, each server seeing the other's client certificate.
 */
class TlsInteropTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  @RegisterExtension final LeakWatch leaks = new LeakWatch();

  private static final String METHOD = "tern.testing.Echo/Unary";

  static TestCertificates server;
  static TestCertificates client;
  @TempDir static Path dir;
  static File serverChain;
  static File serverKey;
  static File clientChain;
  static File clientKey;

  private final BlockingQueue<SSLSession> sessions = new LinkedBlockingQueue<>();

  @BeforeAll
  static void generate() throws Exception {
    server = TestCertificates.generate("tern-server");
    client = TestCertificates.generate("tern-client");
    serverChain =
        PemWriter.write(dir, "server.pem", PemWriter.certificates(server.certificate)).toFile();
    serverKey = PemWriter.write(dir, "server.key", PemWriter.pkcs8(server.key)).toFile();
    clientChain =
        PemWriter.write(dir, "client.pem", PemWriter.certificates(client.certificate)).toFile();
    clientKey = PemWriter.write(dir, "client.key", PemWriter.pkcs8(client.key)).toFile();
  }

  private String peerSubject() throws InterruptedException {
    SSLSession session = sessions.poll(10, TimeUnit.SECONDS);
    assertThat(session).as("the server saw a TLS session").isNotNull();
    try {
      return ((X509Certificate) session.getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
      throw new AssertionError("no client certificate", e);
    }
  }

  @Test
  void ternClientWithTlsCredentialsCallsGrpcJavaServer() throws Exception {
    io.grpc.Server peer =
        io.grpc.Grpc.newServerBuilderForPort(
                0,
                io.grpc.TlsServerCredentials.newBuilder()
                    .keyManager(serverChain, serverKey)
                    .trustManager(clientChain)
                    .clientAuth(io.grpc.TlsServerCredentials.ClientAuth.REQUIRE)
                    .build())
            .addService(grpcJavaEcho())
            .build()
            .start();
    try {
      ManagedChannel channel =
          cleanup.register(
              Grpc.newChannelBuilderForAddress(
                      "localhost",
                      peer.getPort(),
                      TlsChannelCredentials.newBuilder()
                          .trustManager(serverChain)
                          .keyManager(clientChain, clientKey)
                          .build())
                  .build());
      assertThat(
              ClientCalls.blockingUnaryCall(
                  channel,
                  EchoService.UNARY,
                  CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
                  "to grpc-java"))
          .isEqualTo("to grpc-java");
      assertThat(peerSubject()).isEqualTo("CN=tern-client");
    } finally {
      peer.shutdownNow();
      assertThat(peer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void grpcJavaClientWithTlsCredentialsCallsTernServer() throws Exception {
    ServerInterceptor record =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            sessions.add(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
            return next.startCall(call, headers);
          }
        };
    Server tern =
        cleanup.register(
            Grpc.newServerBuilderForPort(
                    0,
                    TlsServerCredentials.newBuilder()
                        .keyManager(serverChain, serverKey)
                        .trustManager(clientChain)
                        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                        .build())
                .addService(ServerInterceptors.intercept(new EchoService(), record))
                .build()
                .start());
    io.grpc.ManagedChannel channel =
        io.grpc.Grpc.newChannelBuilderForAddress(
                "localhost",
                tern.getPort(),
                io.grpc.TlsChannelCredentials.newBuilder()
                    .trustManager(serverChain)
                    .keyManager(clientChain, clientKey)
                    .build())
            .build();
    try {
      byte[] reply =
          io.grpc.stub.ClientCalls.blockingUnaryCall(
              channel,
              grpcJavaMethod(),
              io.grpc.CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
              "to tern".getBytes(StandardCharsets.UTF_8));
      assertThat(new String(reply, StandardCharsets.UTF_8)).isEqualTo("to tern");
      assertThat(peerSubject()).isEqualTo("CN=tern-client");
    } finally {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** grpc-java's side of EchoService.UNARY: UTF-8 strings as bytes, echoed. */
  private static io.grpc.MethodDescriptor<byte[], byte[]> grpcJavaMethod() {
    io.grpc.MethodDescriptor.Marshaller<byte[]> bytes =
        new io.grpc.MethodDescriptor.Marshaller<>() {
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
    return io.grpc.MethodDescriptor.newBuilder(bytes, bytes)
        .setFullMethodName(METHOD)
        .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
        .build();
  }

  private ServerServiceDefinition grpcJavaEcho() {
    io.grpc.ServerInterceptor record =
        new io.grpc.ServerInterceptor() {
          @Override
          public <ReqT, RespT> io.grpc.ServerCall.Listener<ReqT> interceptCall(
              io.grpc.ServerCall<ReqT, RespT> call,
              io.grpc.Metadata headers,
              io.grpc.ServerCallHandler<ReqT, RespT> next) {
            sessions.add(call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_SSL_SESSION));
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(call, headers)) {};
          }
        };
    return io.grpc.ServerInterceptors.intercept(
        ServerServiceDefinition.builder("tern.testing.Echo")
            .addMethod(
                grpcJavaMethod(),
                ServerCalls.asyncUnaryCall(
                    (request, observer) -> {
                      observer.onNext(request);
                      observer.onCompleted();
                    }))
            .build(),
        record);
  }
}
