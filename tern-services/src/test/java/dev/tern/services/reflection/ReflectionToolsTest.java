package dev.tern.services.reflection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.BindableService;
import dev.tern.MutableHandlerRegistry;
import dev.tern.Server;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testtools.ExternalTool;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tern's reflection as real tools see it, over HTTP/2 on loopback: grpcurl (no {@code -proto}
 * anywhere: everything it knows comes from reflection) lists, describes and calls; grpcio's
 * reflection client (Python) lists and looks up; and grpcurl prints the same thing for Tern's
 * server as for a grpc-java server with grpc-java's reflection serving the same schema.
 */
class ReflectionToolsTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private final MutableHandlerRegistry registry = new MutableHandlerRegistry();

  /**
   * Tern's server: the order service and reflection v1 and v1alpha, plus the (tiny) health service
   * unless {@code withHealth} is false; {@link #registry} is its fallback registry.
   */
  private String startTern(boolean withHealth) throws Exception {
    List<BindableService> services =
        new ArrayList<>(List.of(ProtoReflectionService.v1(), ProtoReflectionService.v1alpha()));
    if (withHealth) {
      services.add(new TinyHealthService());
    }
    return startTern(services);
  }

  /** Tern's server with the order service and {@code services}. */
  private String startTern(List<BindableService> services) throws Exception {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new OrderServiceImpl())
            .fallbackHandlerRegistry(registry);
    services.forEach(builder::addService);
    Server server = cleanup.register(builder.build());
    server.start();
    return "127.0.0.1:" + server.getPort();
  }

  /** Runs {@code grpcurl -plaintext [options] target [verb and names]}. */
  private static ToolRun.Result grpcurl(List<String> options, String target, String... rest)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ExternalTool.require("grpcurl").toString());
    command.add("-plaintext");
    command.addAll(options);
    command.add(target);
    command.addAll(List.of(rest));
    return ToolRun.run(command);
  }

  private static String grpcurl(String target, String... rest) throws Exception {
    return grpcurl(List.of(), target, rest).ok();
  }

  @Test
  void grpcurl_listsDescribesAndCalls_knowingOnlyWhatReflectionTellsIt() throws Exception {
    String tern = startTern(true);

    assertThat(grpcurl(tern, "list"))
        .isEqualTo(
            "grpc.health.v1.Health\n"
                + "grpc.reflection.v1.ServerReflection\n"
                + "grpc.reflection.v1alpha.ServerReflection\n"
                + "tern.reflectiontest.OrderService\n");
    assertThat(grpcurl(tern, "describe", "tern.reflectiontest.OrderService"))
        .isEqualTo(
            "tern.reflectiontest.OrderService is a service:\n"
                + "service OrderService {\n"
                + "  rpc Chat ( stream .tern.reflectiontest.Order ) returns ( stream"
                + " .tern.reflectiontest.Receipt );\n"
                + "  rpc Place ( .tern.reflectiontest.Order ) returns ( .tern.reflectiontest.Receipt"
                + " );\n"
                + "  rpc Track ( .tern.reflectiontest.TrackRequest ) returns ( stream"
                + " .tern.reflectiontest.Receipt );\n"
                + "}\n");
    assertThat(grpcurl(tern, "describe", "tern.reflectiontest.Order"))
        .startsWith("tern.reflectiontest.Order is a message:\nmessage Order {\n")
        .contains(
            "  optional .tern.reflectiontest.Order.Kind kind = 2;\n",
            "  optional .google.protobuf.Timestamp placed_at = 4;\n",
            "  message Line {\n    optional string sku = 1;\n",
            "  enum Kind {\n    KIND_UNSPECIFIED = 0;\n    RETAIL = 1;\n    BULK = 2;\n  }\n",
            "  extensions 100 to 199;\n");
    assertThat(grpcurl(tern, "describe", "tern.reflectiontest.OrderService.Track"))
        .isEqualTo(
            "tern.reflectiontest.OrderService.Track is a method:\n"
                + "rpc Track ( .tern.reflectiontest.TrackRequest ) returns ( stream"
                + " .tern.reflectiontest.Receipt );\n");
    assertThat(grpcurl(tern, "describe", "tern.reflectiontest.note"))
        .isEqualTo(
            "tern.reflectiontest.note is an extension:\n"
                + "extend .tern.reflectiontest.Order {\n"
                + "  optional string note = 100;\n"
                + "}\n");

    String placed =
        grpcurl(
                List.of(
                    "-d", "{\"id\": \"o-1\", \"kind\": \"BULK\", \"lines\": [{\"sku\": \"a\"}]}"),
                tern,
                "tern.reflectiontest.OrderService/Place")
            .ok();
    assertThat(placed)
        .isEqualTo("{\n  \"order_id\": \"o-1\",\n  \"carrier\": \"COURIER\",\n  \"step\": 0\n}\n");
    String tracked =
        grpcurl(
                List.of("-d", "{\"orderId\": \"o-2\", \"steps\": 3}"),
                tern,
                "tern.reflectiontest.OrderService/Track")
            .ok();
    assertThat(tracked.lines().filter(l -> l.contains("step")))
        .containsExactly("  \"step\": 1", "  \"step\": 2", "  \"step\": 3");
    assertThat(tracked.lines().filter(l -> l.contains("order_id")))
        .containsOnly("  \"order_id\": \"o-2\",");
    String chatted =
        grpcurl(
                List.of("-d", "{\"id\": \"o-3\"} {\"id\": \"o-4\"}"),
                tern,
                "tern.reflectiontest.OrderService/Chat")
            .ok();
    assertThat(chatted.lines().filter(l -> l.contains("order_id")))
        .containsExactly("  \"order_id\": \"o-3\",", "  \"order_id\": \"o-4\",");
  }

  @Test
  void grpcurl_printsTheSameForTernAsForGrpcJava() throws Exception {
    String tern = startTern(true);
    io.grpc.Server peer = GrpcJavaPeer.start();
    try {
      String grpcJava = "127.0.0.1:" + peer.getPort();
      List<List<String>> commands =
          List.of(
              List.of("list"),
              List.of("list", "tern.reflectiontest.OrderService"),
              List.of("describe", "grpc.reflection.v1.ServerReflection"),
              List.of("describe", "grpc.reflection.v1alpha.ServerReflection"),
              List.of("describe", "grpc.reflection.v1.ServerReflectionRequest"),
              List.of("describe", "grpc.health.v1.HealthCheckRequest"),
              List.of("describe", "grpc.health.v1.HealthCheckResponse"),
              List.of("describe", "grpc.health.v1.Health.Check"),
              List.of("describe", "grpc.health.v1.Health.Watch"),
              List.of("describe", "tern.reflectiontest.OrderService"),
              List.of("describe", "tern.reflectiontest.OrderService.Chat"),
              List.of("describe", "tern.reflectiontest.Order"),
              List.of("describe", "tern.reflectiontest.Order.Line"),
              List.of("describe", "tern.reflectiontest.GiftOptions"),
              List.of("describe", "tern.reflectiontest.Receipt"),
              List.of("describe", "google.protobuf.Timestamp"));
      for (List<String> command : commands) {
        String[] args = command.toArray(new String[0]);
        assertThat(grpcurl(tern, args))
            .as("grpcurl %s", command)
            .isEqualTo(grpcurl(grpcJava, args));
      }
      // Enums and extensions as symbols: Tern finds them, grpc-java's reflection does not.
      for (String symbol :
          List.of(
              "tern.reflectiontest.Carrier",
              "tern.reflectiontest.Order.Kind",
              "tern.reflectiontest.note",
              "tern.reflectiontest.GiftOptions.gift")) {
        assertThat(grpcurl(tern, "describe", symbol)).startsWith(symbol + " is an ");
        assertThat(grpcurl(List.of(), grpcJava, "describe", symbol).stderr())
            .contains("Symbol not found: " + symbol);
      }
      // Tern's health.proto has the newer List method, grpc-java 1.79's does not: otherwise equal.
      String ternHealth = grpcurl(tern, "describe", "grpc.health.v1.Health");
      String listLine =
          "  rpc List ( .grpc.health.v1.HealthListRequest ) returns ("
              + " .grpc.health.v1.HealthListResponse );\n";
      assertThat(ternHealth).contains(listLine);
      assertThat(ternHealth.replace(listLine, ""))
          .isEqualTo(grpcurl(grpcJava, "describe", "grpc.health.v1.Health"));
    } finally {
      peer.shutdownNow();
      peer.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void grpcurl_seesAServiceAddedToTheFallbackRegistryAfterStart() throws Exception {
    String tern = startTern(false);
    assertThat(grpcurl(tern, "list")).doesNotContain("grpc.health.v1.Health");

    registry.addService(new TinyHealthService().bindService());

    assertThat(grpcurl(tern, "list")).contains("grpc.health.v1.Health\n");
    assertThat(grpcurl(List.of("-d", "{}"), tern, "grpc.health.v1.Health/Check").ok())
        .isEqualTo("{\n  \"status\": \"SERVING\"\n}\n");
  }

  @Test
  void grpcurl_reportsAnUnknownSymbolAsNotFound() throws Exception {
    String tern = startTern(true);

    ToolRun.Result result = grpcurl(List.of(), tern, "describe", "tern.reflectiontest.Nope");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr()).contains("Symbol not found: tern.reflectiontest.Nope");
    // The server is fine afterwards.
    assertThat(grpcurl(tern, "list")).contains("tern.reflectiontest.OrderService");
  }

  @Test
  void grpcurl_worksWithEitherVersionAlone() throws Exception {
    String v1Only = startTern(List.of(ProtoReflectionService.v1()));
    String v1alphaOnly = startTern(List.of(ProtoReflectionService.v1alpha()));

    assertThat(grpcurl(v1Only, "list"))
        .isEqualTo("grpc.reflection.v1.ServerReflection\ntern.reflectiontest.OrderService\n");
    assertThat(grpcurl(v1alphaOnly, "list"))
        .isEqualTo("grpc.reflection.v1alpha.ServerReflection\ntern.reflectiontest.OrderService\n");
    assertThat(grpcurl(v1alphaOnly, "describe", "tern.reflectiontest.OrderService.Place"))
        .isEqualTo(grpcurl(v1Only, "describe", "tern.reflectiontest.OrderService.Place"));
  }

  private static String grpcioReflectionClient(String target) throws Exception {
    Path script = Path.of("src", "test", "python", "reflection_client.py");
    return ToolRun.run(
            List.of(
                ExternalTool.requirePython().toString(),
                script.toString(),
                target,
                "tern.reflectiontest.Order.Line",
                "tern.reflectiontest.Order"))
        .ok();
  }

  @Test
  void grpcioReflectionClient_needsV1alphaOnly() throws Exception {
    String v1alphaOnly = startTern(List.of(ProtoReflectionService.v1alpha()));

    assertThat(grpcioReflectionClient(v1alphaOnly))
        .startsWith(
            "services: grpc.reflection.v1alpha.ServerReflection,tern.reflectiontest.OrderService\n"
                + "file of tern.reflectiontest.Order.Line: tern/reflectiontest/orders.proto\n");
  }

  @Test
  void grpcioReflectionClient_listsTheServicesAndFindsASymbol() throws Exception {
    String tern = startTern(true);

    String printed = grpcioReflectionClient(tern);

    assertThat(printed)
        .isEqualTo(
            "services: grpc.health.v1.Health,grpc.reflection.v1.ServerReflection,"
                + "grpc.reflection.v1alpha.ServerReflection,tern.reflectiontest.OrderService\n"
                + "file of tern.reflectiontest.Order.Line: tern/reflectiontest/orders.proto\n"
                + "fields of tern.reflectiontest.Order: id,kind,lines,placed_at\n"
                + "extension numbers of tern.reflectiontest.Order: 100,150\n");
  }
}
