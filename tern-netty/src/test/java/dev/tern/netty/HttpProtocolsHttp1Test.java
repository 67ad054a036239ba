package dev.tern.netty;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.TernCleanupExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server's protocols beside gRPC, over HTTP/1.1 (cleartext and TLS with ALPN), seen by the JDK's
 * HTTP client and by raw sockets: requests reach the protocol, refused ones get a clear answer and
 * leave the connection usable, pipelined ones are answered in order, and gRPC still works on the
 * same port.
 */
class HttpProtocolsHttp1Test {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final EchoHttpProtocol echo = new EchoHttpProtocol();

  private int start(NettyServerBuilder builder) throws IOException {
    Server server = cleanup.register(builder.addService(new EchoService()).build().start());
    return server.getPort();
  }

  private int startPlaintext() throws IOException {
    return start(NettyServerBuilder.forPort(0).httpProtocols(echo));
  }

  private static HttpClient http1() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  @Test
  void getAndPostOverHttp1() throws Exception {
    int port = startPlaintext();
    HttpClient client = http1();
    HttpResponse<String> hello =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(hello.statusCode()).isEqualTo(200);
    assertThat(hello.body()).isEqualTo("hello http/1.1");

    byte[] big = new byte[1024 * 1024 + 17];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31);
    }
    HttpResponse<byte[]> echoed =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/any"))
                .header("content-type", "text/echo")
                .POST(HttpRequest.BodyPublishers.ofByteArray(big))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(echoed.statusCode()).isEqualTo(200);
    assertThat(echoed.headers().firstValue("x-received")).hasValue(Integer.toString(big.length));
    assertThat(echoed.headers().firstValue("content-length"))
        .hasValue(Integer.toString(big.length));
    assertThat(Arrays.equals(echoed.body(), big)).isTrue();
  }

  @Test
  void grpcWebPostToServerWithoutProtocolsGets415OverHttp1() throws Exception {
    int port = start(NettyServerBuilder.forPort(0).httpProtocols());
    HttpResponse<String> response =
        http1()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/grpc.testing.Echo/Unary"))
                    .header("content-type", "application/grpc-web+proto")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {0, 0, 0, 0, 0}))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(415);
    assertThat(response.body())
        .isEqualTo("415 Content-Type 'application/grpc-web+proto' is not supported\n");
    assertThat(response.headers().firstValue("grpc-status"))
        .hasValue(Integer.toString(Status.Code.INTERNAL.value()));
  }

  @Test
  void refusedRequestLeavesConnectionUsableAndPipelinedRequestsAnswerInOrder() throws Exception {
    int port = startPlaintext();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/unknown\r\nContent-Length: 3\r\n\r\nabc"
                  + "GET /hello HTTP/1.1\r\nHost: a\r\n\r\n"
                  + "GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
              .getBytes(US_ASCII));
      out.flush();
      String all = new String(readAll(socket.getInputStream()), US_ASCII);
      assertThat(all).startsWith("HTTP/1.1 415 Unsupported Media Type\r\n");
      assertThat(all).contains("415 Content-Type 'text/unknown' is not supported\n");
      int first = all.indexOf("HTTP/1.1 200 OK");
      int second = all.indexOf("HTTP/1.1 200 OK", first + 1);
      assertThat(first).isPositive();
      assertThat(second).isGreaterThan(first);
      assertThat(all.substring(first, second)).contains("hello http/1.1");
      assertThat(all.substring(second)).endsWith("hello http/1.1");
    }
  }

  @Test
  void malformedRequestGets400AndClose() throws Exception {
    int port = startPlaintext();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(20_000);
      socket
          .getOutputStream()
          .write("GET /hello HTTP/1.1\r\nBad Header Line\r\n\r\n".getBytes(US_ASCII));
      String all = new String(readAll(socket.getInputStream()), US_ASCII);
      assertThat(all).startsWith("HTTP/1.1 400 Bad Request\r\n");
      assertThat(all).contains("connection: close");
    }
  }

  @Test
  void clientLeavingMidBodyAbortsTheExchange() throws Exception {
    int port = startPlaintext();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket
          .getOutputStream()
          .write(
              "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: text/echo\r\nContent-Length: 100\r\n\r\n0123"
                  .getBytes(US_ASCII));
      socket.getOutputStream().flush();
    }
    Status status = echo.aborts.poll(20, TimeUnit.SECONDS);
    assertThat(status).isNotNull();
    assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
  }

  @Test
  void tlsNegotiatesHttp1OrHttp2ByAlpnAndGrpcStillWorks() throws Exception {
    TestCertificates certificates = TestCertificates.generate("localhost");
    int port =
        start(
            NettyServerBuilder.forPort(0)
                .sslContext(
                    NettySslContexts.forServer(certificates.key, certificates.certificate).build())
                .httpProtocols(echo));
    SSLContext trusting = trusting(certificates.certificate);
    for (HttpClient.Version version : HttpClient.Version.values()) {
      HttpClient client =
          HttpClient.newBuilder()
              .version(version)
              .sslContext(trusting)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      HttpResponse<String> hello =
          client.send(
              HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/hello")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(hello.body())
          .isEqualTo(version == HttpClient.Version.HTTP_2 ? "hello h2" : "hello http/1.1");
    }
    ManagedChannel channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("localhost", port)
                .sslContext(
                    NettySslContexts.forClient().trustManager(certificates.certificate).build())
                .build());
    assertThat(
            ClientCalls.blockingUnaryCall(
                channel, EchoService.UNARY, CallOptions.DEFAULT, "over TLS"))
        .isEqualTo("over TLS");
  }

  private static SSLContext trusting(X509Certificate certificate) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("server", certificate);
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }
}
