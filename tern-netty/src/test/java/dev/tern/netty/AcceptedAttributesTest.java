package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.InsecureServerCredentials;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.PerConnectionServerCredentials;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerTransportFilter;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The attributes {@link PerConnectionServerCredentials} choose when a connection is accepted (how
 * xDS's server carries a connection's filter chain past its handshake) reach the transport filters'
 * {@code transportReady} and the calls, whichever handler serves the connection: HTTP/2 or
 * HTTP/1.1.
 */
class AcceptedAttributesTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final Attributes.Key<String> CHOSEN = Attributes.Key.create("test-chosen");

  /** What the transport filter saw under {@link #CHOSEN}, one entry per connection. */
  private final BlockingQueue<String> seenAtReady = new LinkedBlockingQueue<>();

  /** What each call saw under {@link #CHOSEN}. */
  private final BlockingQueue<String> seenByCalls = new LinkedBlockingQueue<>();

  /** Chooses no TLS, and the attribute naming the connection's client port. */
  private static final PerConnectionServerCredentials CHOOSING =
      new PerConnectionServerCredentials(InsecureServerCredentials.create()) {
        @Override
        public Selection select(SocketAddress local, SocketAddress remote) {
          int port = ((InetSocketAddress) remote).getPort();
          return new Selection(null, Attributes.newBuilder().set(CHOSEN, "from " + port).build());
        }
      };

  private final ServerTransportFilter recordAtReady =
      new ServerTransportFilter() {
        @Override
        public Attributes transportReady(Attributes attrs, Connection connection) {
          seenAtReady.add(String.valueOf(attrs.get(CHOSEN)));
          return attrs;
        }
      };

  private final ServerInterceptor recordInCalls =
      new ServerInterceptor() {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
            ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
          seenByCalls.add(String.valueOf(call.getAttributes().get(CHOSEN)));
          return next.startCall(call, headers);
        }
      };

  private int start() throws IOException {
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .perConnectionCredentials(CHOOSING)
                .httpProtocols(new EchoHttpProtocol())
                .addTransportFilter(recordAtReady)
                .addService(ServerInterceptors.intercept(new EchoService(), recordInCalls))
                .build()
                .start());
    return server.getPort();
  }

  @Test
  void http2Connection_carriesTheChosenAttributes_toTheFilterAndTheCalls() throws Exception {
    int port = start();
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());

    String answer =
        ClientCalls.blockingUnaryCall(
            channel,
            EchoService.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
            "hello");

    assertThat(answer).isEqualTo("hello");
    String seen = seenAtReady.poll(10, TimeUnit.SECONDS);
    assertThat(seen).startsWith("from ");
    assertThat(seenByCalls.poll(10, TimeUnit.SECONDS)).isEqualTo(seen);
  }

  @Test
  void http1Connection_carriesTheChosenAttributes_toTheFilter() throws Exception {
    int port = start();
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    HttpResponse<String> hello =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                .timeout(Duration.ofSeconds(20))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(hello.statusCode()).isEqualTo(200);
    assertThat(seenAtReady.poll(10, TimeUnit.SECONDS)).startsWith("from ");
  }
}
