package dev.tern.examples.routeguide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Server;
import dev.tern.examples.ToolRunner;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What docs/web.md promises a user of {@code bin/routeguide-server}: with tern-web on the class
 * path the same port answers buf curl over Connect, gRPC-Web and gRPC, on HTTP/1.1 and HTTP/2, and
 * plain curl with a JSON body (Connect's unary POST) or a GET (GetFeature has no side effects): the
 * commands README.md and docs/web.md show.
 */
class RouteGuideWebToolsTest {
  private static final String PROTO = "src/main/proto/routeguide/route_guide.proto";
  private static final String TOWER_BRIDGE_POINT = "{\"latitude\":515055000,\"longitude\":-754000}";
  private static final String TOWER_BRIDGE_JSON =
      "{\"name\":\"Tower Bridge\","
          + "\"location\":{\"latitude\":515055000,\"longitude\":-754000}}";
  private static final String SOUTH_BANK =
      "{\"lo\":{\"latitude\":515070000,\"longitude\":-1000000},"
          + "\"hi\":{\"latitude\":515100000,\"longitude\":-970000}}";

  @TempDir Path dir;
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();
  private String baseUrl;

  @BeforeEach
  void startServer() throws Exception {
    Server server = cleanup.register(RouteGuideServer.start(0));
    baseUrl = "http://127.0.0.1:" + server.getPort() + "/" + RouteGuideTern.SERVICE_NAME;
  }

  @ParameterizedTest(name = "{0} over {1}")
  @CsvSource({
    "connect, HTTP/1.1",
    "connect, HTTP/2",
    "grpcweb, HTTP/1.1",
    "grpcweb, HTTP/2",
    "grpc, HTTP/2"
  })
  void bufCurlCallsUnaryAndStreamingMethods(String protocol, String http) throws Exception {
    Path buf = ExternalTool.require(ExternalTool.BUF);
    List<String> flags =
        new ArrayList<>(List.of("curl", "--schema", PROTO, "--protocol", protocol));
    if (http.equals("HTTP/2")) {
      flags.add("--http2-prior-knowledge");
    }

    assertThat(bufCurl(buf, flags, TOWER_BRIDGE_POINT, "GetFeature"))
        .isEqualTo(
            "{\n"
                + "  \"name\": \"Tower Bridge\",\n"
                + "  \"location\": {\n"
                + "    \"latitude\": 515055000,\n"
                + "    \"longitude\": -754000\n"
                + "  }\n"
                + "}\n");
    assertThat(bufCurl(buf, flags, SOUTH_BANK, "ListFeatures").lines())
        .filteredOn(line -> line.contains("\"name\""))
        .containsExactly(
            "  \"name\": \"Millennium Bridge\",",
            "  \"name\": \"Tate Modern\",",
            "  \"name\": \"Shakespeare's Globe\",");
    // Client streaming, two known features passed (over HTTP/1.1 the request goes whole, then the
    // answer comes).
    String route = TOWER_BRIDGE_POINT + " {\"latitude\":515081000,\"longitude\":-759000}";
    assertThat(bufCurl(buf, flags, route, "RecordRoute"))
        .contains("\"pointCount\": 2,", "\"featureCount\": 2,");
  }

  private String bufCurl(Path buf, List<String> flags, String data, String method)
      throws Exception {
    List<String> args = new ArrayList<>(flags);
    args.add("--data");
    args.add(data);
    args.add(baseUrl + "/" + method);
    return ToolRunner.run(dir, buf, args.toArray(String[]::new));
  }

  @Test
  void curlPostsJsonOverHttp1() throws Exception {
    String answer = curl("-H", "Content-Type: application/json", "-d", TOWER_BRIDGE_POINT);

    assertThat(answer)
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("\r\ncontent-type: application/json\r\n");
    assertThat(body(answer)).isEqualTo(TOWER_BRIDGE_JSON);
  }

  @Test
  void curlGetsASideEffectFreeMethodWithItsMessageInTheQuery() throws Exception {
    String answer =
        curl(
            "--get",
            "--data-urlencode",
            "message=" + TOWER_BRIDGE_POINT,
            "-d",
            "encoding=json",
            "-d",
            "connect=v1");

    assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n");
    assertThat(body(answer)).isEqualTo(TOWER_BRIDGE_JSON);
  }

  @Test
  void jsonThatIsNotAPointGetsConnectsErrorBody() throws Exception {
    String answer = curl("-H", "Content-Type: application/json", "-d", "{\"latitude\":\"north\"}");

    assertThat(answer)
        .startsWith("HTTP/1.1 400 Bad Request\r\n")
        .contains("\r\ncontent-type: application/json\r\n");
    assertThat(body(answer))
        .startsWith(
            "{\"code\":\"invalid_argument\",\"message\":\"Request is not valid JSON for"
                + " tern.examples.routeguide.Point: ")
        .contains("north");
  }

  /** curl's answer to GetFeature with {@code flags}, headers included ({@code -i}). */
  private String curl(String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("-sS", "-i"));
    args.addAll(List.of(flags));
    args.add(baseUrl + "/GetFeature");
    return ToolRunner.run(
        dir, ExternalTool.require(ExternalTool.CURL), args.toArray(String[]::new));
  }

  /** The body of a response {@code curl -i} printed (after the first blank line). */
  private static String body(String response) {
    int end = response.indexOf("\r\n\r\n");
    assertThat(end).as("end of the headers in %s", response).isPositive();
    return response.substring(end + 4);
  }
}
