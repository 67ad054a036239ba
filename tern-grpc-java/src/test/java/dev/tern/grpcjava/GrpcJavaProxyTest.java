package dev.tern.grpcjava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.testtools.ProxyPy;
import io.grpc.Grpc;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ProxyDetector;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * grpc-java's {@code proxyDetector} on a bridged channel, through a real HTTP CONNECT proxy,
 * proxy.py (tern-test-tools' {@link ProxyPy}; skipped where it is not installed, failed then under
 * {@code CI=true}): grpc-java's detector and {@code HttpConnectProxiedSocketAddress}, credentials
 * included, reach Tern's transport, which opens the tunnel.
 */
class GrpcJavaProxyTest {
  private Server server;
  private ManagedChannel channel;
  private ProxyPy proxy;

  @BeforeEach
  void startServer() throws Exception {
    server =
        Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
            .addService(
                new TestServiceGrpc.TestServiceImplBase() {
                  @Override
                  public void unaryCall(
                      SimpleRequest request, StreamObserver<SimpleResponse> responses) {
                    responses.onNext(SimpleResponse.getDefaultInstance());
                    responses.onCompleted();
                  }
                })
            .build()
            .start();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      Peers.close(channel);
    }
    server.shutdownNow();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    if (proxy != null) {
      proxy.close();
    }
  }

  /** grpc-java's detector that sends every target through the proxy, as {@code user}. */
  private ProxyDetector through(String user, String password) {
    InetSocketAddress proxyAddress = new InetSocketAddress("127.0.0.1", proxy.port());
    return target ->
        HttpConnectProxiedSocketAddress.newBuilder()
            .setProxyAddress(proxyAddress)
            .setTargetAddress((InetSocketAddress) target)
            .setUsername(user)
            .setPassword(password)
            .build();
  }

  private void call(ProxyDetector detector) {
    channel =
        Grpc.newChannelBuilder("127.0.0.1:" + server.getPort(), InsecureChannelCredentials.create())
            .proxyDetector(detector)
            .build();
    TestServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .unaryCall(SimpleRequest.getDefaultInstance());
  }

  @Test
  void aCallGoesThroughTheProxyGrpcJavasDetectorNames() throws Exception {
    proxy = ProxyPy.start();

    call(through(null, null));
    Peers.close(channel);
    channel = null;

    String target = "127.0.0.1:" + server.getPort();
    assertThat(proxy.connectsTo(target, Duration.ofSeconds(10))).as(proxy.output()).isTrue();
  }

  @Test
  void grpcJavasCredentialsReachTheProxy() throws Exception {
    proxy = ProxyPy.startWithBasicAuth("alice", "s3cret");

    call(through("alice", "s3cret"));
    Peers.close(channel);

    assertThatThrownBy(() -> call(through("alice", "wrong")))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription())
                  .startsWith("HTTP CONNECT proxy 127.0.0.1:" + proxy.port())
                  .contains("407");
            });
  }
}
