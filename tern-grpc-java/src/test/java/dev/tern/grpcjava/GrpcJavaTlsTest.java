package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.SecurityLevel;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * grpc-java's TLS credentials on the bridge, both ends, with grpc-java's own test certificates
 * (server1 is issued for *.test.google.fr by the test CA).
 */
class GrpcJavaTlsTest {
  private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

  /** What the server's handler saw of each call's transport: security level and TLS session. */
  private final BlockingQueue<Object[]> seen = new LinkedBlockingQueue<>();

  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    Peers.close(channel, server, scheduler);
  }

  private static InputStream cert(String name) {
    return GrpcJavaTlsTest.class.getResourceAsStream("/certs/" + name);
  }

  private void startServer(ServerCredentials credentials) throws IOException {
    server =
        Grpc.newServerBuilderForPort(0, credentials)
            .addService(new TestServiceImpl(scheduler))
            .intercept(
                new ServerInterceptor() {
                  @Override
                  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
                      ServerCall<ReqT, RespT> call,
                      Metadata headers,
                      ServerCallHandler<ReqT, RespT> next) {
                    seen.add(
                        new Object[] {
                          call.getSecurityLevel(),
                          call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION)
                        });
                    return next.startCall(call, headers);
                  }
                })
            .build()
            .start();
  }

  private TestServiceGrpc.TestServiceBlockingStub stub(ChannelCredentials credentials) {
    channel =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), credentials)
            .overrideAuthority("foo.test.google.fr")
            .build();
    return TestServiceGrpc.newBlockingStub(channel);
  }

  @Test
  void tls() throws Exception {
    startServer(TlsServerCredentials.create(cert("server1.pem"), cert("server1.key")));
    stub(TlsChannelCredentials.newBuilder().trustManager(cert("ca.pem")).build())
        .unaryCall(SimpleRequest.newBuilder().setResponseSize(10).build());

    Object[] transport = seen.poll(5, TimeUnit.SECONDS);
    assertThat(transport[0]).isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
    assertThat(transport[1]).isInstanceOf(SSLSession.class);
  }

  @Test
  void mutualTlsRequiresTheClientsCertificate() throws Exception {
    startServer(
        TlsServerCredentials.newBuilder()
            .keyManager(cert("server1.pem"), cert("server1.key"))
            .trustManager(cert("ca.pem"))
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
            .build());
    TestServiceGrpc.TestServiceBlockingStub withoutCertificate =
        stub(TlsChannelCredentials.newBuilder().trustManager(cert("ca.pem")).build());
    assertThatThrownBy(() -> withoutCertificate.unaryCall(SimpleRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    Peers.close(channel);

    stub(TlsChannelCredentials.newBuilder()
            .keyManager(cert("client.pem"), cert("client.key"))
            .trustManager(cert("ca.pem"))
            .build())
        .unaryCall(SimpleRequest.getDefaultInstance());
    SSLSession session = (SSLSession) seen.poll(5, TimeUnit.SECONDS)[1];
    assertThat(session.getPeerCertificates()).isNotEmpty();
  }
}
