package dev.tern.netty;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.netty.hostile.LeakWatch;
import dev.tern.netty.testing.EchoHttpProtocol;
import dev.tern.netty.testing.HeldHttpProtocol;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The protocols beside gRPC on a TLS port: ALPN {@code http/1.1} and {@code h2} each reach them, a
 * client that offers no ALPN is served HTTP/1.1 and refused HTTP/2 (gRPC over TLS requires ALPN, as
 * before), HTTP/2 bodies flow as the protocol consumes them, and a plaintext client on the TLS port
 * sees the connection close rather than reset.
 */
class HttpProtocolsTlsTest {
  @RegisterExtension final LeakWatch leaks = new LeakWatch();
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static TestCertificates certificates;
  private static SSLContext trusting;

  private final EchoHttpProtocol echo = new EchoHttpProtocol();
  private final HeldHttpProtocol held = new HeldHttpProtocol();

  @BeforeAll
  static void certificates() throws Exception {
    certificates = TestCertificates.generate("localhost");
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setCertificateEntry("server", certificates.certificate);
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    trusting = SSLContext.getInstance("TLS");
    trusting.init(null, trust.getTrustManagers(), null);
  }

  private int start(NettyServerBuilder builder) throws IOException {
    Server server =
        cleanup.register(
            builder
                .sslContext(
                    NettySslContexts.forServer(certificates.key, certificates.certificate).build())
                .httpProtocols(echo, held)
                .addService(new EchoService())
                .build()
                .start());
    return server.getPort();
  }

  /** A TLS socket offering {@code alpn} (none if empty), handshake done. */
  private static SSLSocket tls(int port, String... alpn) throws IOException {
    SSLSocket socket = (SSLSocket) trusting.getSocketFactory().createSocket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 20_000);
    socket.setSoTimeout(20_000);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setApplicationProtocols(alpn);
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    return socket;
  }

  private static String readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toString(US_ASCII);
  }

  @Test
  void alpnHttp11IsServedHttp11() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));
    try (SSLSocket socket = tls(port, "http/1.1")) {
      assertThat(socket.getApplicationProtocol()).isEqualTo("http/1.1");
      socket
          .getOutputStream()
          .write("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
      assertThat(readToEnd(socket.getInputStream()))
          .startsWith("HTTP/1.1 200 OK\r\n")
          .endsWith("hello http/1.1");
    }
  }

  @Test
  void serverPrefersH2WhenTheClientOffersBoth() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));
    try (SSLSocket socket = tls(port, "http/1.1", "h2")) {
      assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
    }
  }

  @Test
  void clientOfferingNoAlpnIsServedHttp11() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));
    try (SSLSocket socket = tls(port)) {
      socket
          .getOutputStream()
          .write("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
      assertThat(readToEnd(socket.getInputStream())).endsWith("hello http/1.1");
    }
  }

  @Test
  void clientOfferingNoAlpnIsRefusedHttp2AsBefore() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));
    try (SSLSocket socket = tls(port)) {
      OutputStream out = socket.getOutputStream();
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(US_ASCII));
      out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
      out.flush();
      assertThat(readToEnd(socket.getInputStream())).isEmpty();
    }
  }

  @Test
  void http2BodyLargerThanTheStreamWindowArrivesAsTheProtocolConsumesIt() throws Exception {
    int window = 64 * 1024;
    int port = start(NettyServerBuilder.forPort(0).flowControlWindow(window));
    byte[] body = new byte[2 * 1024 * 1024];
    CompletableFuture<HttpResponse<String>> sent =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_2)
            .sslContext(trusting)
            .build()
            .sendAsync(
                HttpRequest.newBuilder(URI.create("https://localhost:" + port + "/x"))
                    .header("content-type", "text/held")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    HeldHttpProtocol.Held exchange = held.next();
    assertThat(exchange.exchange().request().isHttp2()).isTrue();
    while (!exchange.bodyEnded.isDone()) {
      exchange.awaitUnconsumed(window / 2);
      exchange.consumeAll();
    }
    exchange.respond("got it");
    HttpResponse<String> response = sent.get(20, TimeUnit.SECONDS);
    assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(response.body()).isEqualTo("got it");
    assertThat(exchange.received()).isEqualTo(body.length);
    // HTTP/2 flow control: never more than the stream's window unconsumed.
    assertThat(exchange.mostUnconsumed()).isBetween((long) window / 2, (long) window);
  }

  @Test
  void plaintextClientOnTheTlsPortSeesAClose() throws Exception {
    int port = start(NettyServerBuilder.forPort(0));
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 20_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write("GET /hello HTTP/1.1\r\n".getBytes(US_ASCII));
      out.flush();
      out.write("Host: a\r\n\r\n".getBytes(US_ASCII));
      out.flush();
      // End of stream, not "connection reset": the server closed, it did not abort.
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }
}
