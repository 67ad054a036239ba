package dev.tern.console;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's own endpoints over real HTTP/1.1 (the JDK's client), and its security paths: the
 * token, the CSP, unknown and traversing paths, and the refusal to serve beyond loopback without an
 * authenticator.
 */
class TernConsoleTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private static final Pattern TOKEN =
      Pattern.compile("<meta name=\"tern-console-token\" content=\"([0-9a-f]{48})\">");

  static NettyServerBuilder loopback() {
    return NettyServerBuilder.forAddress(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  private int start(TernConsole console) throws Exception {
    NettyServerBuilder builder =
        loopback()
            .addService(ProtoReflectionService.v1())
            .addService(new HealthStatusManager().getHealthService());
    Server server = cleanup.register(console.addTo(builder).build().start());
    return server.getPort();
  }

  static HttpResponse<String> get(int port, String path) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> postExamples(int port, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/_tern/console/api/examples"))
            .POST(HttpRequest.BodyPublishers.ofString("{}"));
    if (token != null) {
      request.header("x-tern-console-token", token);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String tokenOf(HttpResponse<String> page) {
    Matcher matcher = TOKEN.matcher(page.body());
    assertThat(matcher.find()).as(page.body()).isTrue();
    return matcher.group(1);
  }

  @Test
  void thePageCarriesATokenAndAStrictCsp() throws Exception {
    int port = start(TernConsole.builder().build());

    HttpResponse<String> page = get(port, "/_tern/console/");

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("content-security-policy").orElseThrow())
        .contains("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'")
        .doesNotContain("unsafe-inline");
    assertThat(page.body()).contains("<script type=\"module\" src=\"v1/app.js\"></script>");
    assertThat(page.body()).doesNotContain("@TOKEN@");
    tokenOf(page);
  }

  @Test
  void everyAnswerCarriesTheCspEvenErrors() throws Exception {
    int port = start(TernConsole.builder().build());

    for (String path :
        new String[] {"/_tern/console/v1/app.js", "/_tern/console/v1/nope.js", "/_tern/console"}) {
      HttpResponse<String> response = get(port, path);
      assertThat(response.headers().firstValue("content-security-policy"))
          .as(path)
          .hasValueSatisfying(csp -> assertThat(csp).startsWith("default-src 'self'"));
      assertThat(response.headers().firstValue("x-content-type-options")).hasValue("nosniff");
    }
    HttpResponse<String> script = get(port, "/_tern/console/v1/app.js");
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.headers().firstValue("content-type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(script.body()).contains("loadSchema");
  }

  @Test
  void theBarePathRedirectsToTheFolder() throws Exception {
    int port = start(TernConsole.builder().build());

    HttpResponse<String> response = get(port, "/_tern/console");

    assertThat(response.statusCode()).isEqualTo(308);
    assertThat(response.headers().firstValue("location")).hasValue("/_tern/console/");
  }

  @Test
  void unknownAssetIs404() throws Exception {
    int port = start(TernConsole.builder().build());

    HttpResponse<String> response = get(port, "/_tern/console/v1/missing.js");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body()).isEqualTo("No console asset v1/missing.js\n");
  }

  @Test
  void pathTraversalIsRefused() throws Exception {
    int port = start(TernConsole.builder().build());

    for (String path :
        new String[] {
          "/_tern/console/v1/../index.html",
          "/_tern/console/v1/..%2F..%2Fpom.xml",
          "/_tern/console/dev/tern/console/TernConsole.class",
          "/_tern/console//etc/passwd",
        }) {
      HttpResponse<String> response = get(port, path);
      assertThat(response.statusCode()).as(path).isEqualTo(400);
      assertThat(response.body()).as(path).startsWith("Not a console asset name: ");
    }
  }

  @Test
  void theEndpointNeedsThePagesToken() throws Exception {
    int port =
        start(
            TernConsole.builder()
                .exampleRequest("routeguide.RouteGuide/GetFeature", "{\"latitude\": 1}")
                .build());
    String token = tokenOf(get(port, "/_tern/console/"));

    HttpResponse<String> missing = postExamples(port, null);
    HttpResponse<String> wrong = postExamples(port, "0".repeat(48));
    HttpResponse<String> right = postExamples(port, token);

    assertThat(missing.statusCode()).isEqualTo(403);
    assertThat(missing.body())
        .isEqualTo("Missing or wrong x-tern-console-token: reload the console\n");
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(right.statusCode()).isEqualTo(200);
    assertThat(right.body())
        .isEqualTo("{\"routeguide.RouteGuide/GetFeature\":[\"{\\\"latitude\\\": 1}\"]}");
  }

  @Test
  void noStateChangingGet() throws Exception {
    int port = start(TernConsole.builder().build());

    HttpResponse<String> response = get(port, "/_tern/console/api/examples");

    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("allow")).hasValue("POST");
  }

  @Test
  void anotherServersTokenIsRefused() throws Exception {
    int first = start(TernConsole.builder().build());
    int second = start(TernConsole.builder().build());
    String firstToken = tokenOf(get(first, "/_tern/console/"));

    assertThat(tokenOf(get(second, "/_tern/console/"))).isNotEqualTo(firstToken);
    assertThat(postExamples(second, firstToken).statusCode()).isEqualTo(403);
  }

  @Test
  void remoteBindWithoutAuthenticatorIsRefused() {
    TernConsole console = TernConsole.builder().build();

    assertThatThrownBy(() -> console.addTo(NettyServerBuilder.forPort(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("beyond loopback")
        .hasMessageContaining("authenticator");
  }

  @Test
  void remoteBindWithExplicitOptInWarnsLoudly() {
    try (LogCapture logs = new LogCapture(TernConsole.class)) {
      TernConsole.builder()
          .allowUnauthenticatedRemote()
          .build()
          .addTo(NettyServerBuilder.forPort(0));

      assertThat(logs.records())
          .anySatisfy(
              record -> {
                assertThat(record.getLevel()).isEqualTo(Level.WARNING);
                assertThat(record.getMessage()).contains("WITHOUT authentication");
              });
    }
  }

  @Test
  void theAuthenticatorGuardsEveryConsoleRequest() throws Exception {
    NettyServerBuilder builder = loopback().addService(ProtoReflectionService.v1());
    TernConsole.builder()
        .authenticator(ConsoleAuthenticator.basic("admin", "s3cret"))
        .build()
        .addTo(builder);
    int port = cleanup.register(builder.build().start()).getPort();

    HttpResponse<String> refused = get(port, "/_tern/console/");
    HttpResponse<String> allowed =
        CLIENT.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_tern/console/"))
                .header("authorization", "Basic YWRtaW46czNjcmV0")
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.headers().firstValue("www-authenticate"))
        .hasValueSatisfying(value -> assertThat(value).startsWith("Basic realm=\"Tern console\""));
    assertThat(allowed.statusCode()).isEqualTo(200);
  }

  @Test
  void badArgumentsNameTheArgument() {
    TernConsole.Builder builder = TernConsole.builder();

    assertThatThrownBy(() -> builder.exampleRequest("NoSlash", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fullMethodName");
    assertThatThrownBy(() -> builder.exampleRequest("a.B/C", "[1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("json");
    assertThatThrownBy(() -> builder.webProtocols(java.util.List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("protocols");
    assertThatThrownBy(() -> ConsoleAuthenticator.basic("a:b", "p"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user");
  }

  /**
   * What the page does first: reflection's bidi method, half-duplex over Connect streaming JSON on
   * HTTP/1.1 (one request message in the body, then the responses).
   */
  @Test
  void reflectionAnswersHalfDuplexOverHttp1() throws Exception {
    int port = start(TernConsole.builder().build());
    byte[] json = "{\"listServices\":\"\"}".getBytes(UTF_8);
    ByteBuffer body = ByteBuffer.allocate(5 + json.length).put((byte) 0).putInt(json.length);
    body.put(json);

    HttpResponse<byte[]> response =
        CLIENT.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + port
                            + "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"))
                .header("content-type", "application/connect+json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.array()))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());

    assertThat(response.statusCode()).isEqualTo(200);
    String text = new String(response.body(), UTF_8);
    assertThat(text)
        .contains("\"name\":\"grpc.reflection.v1.ServerReflection\"")
        .contains("\"name\":\"grpc.health.v1.Health\"");
  }
}
