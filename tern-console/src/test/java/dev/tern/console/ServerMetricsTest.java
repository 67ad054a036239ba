package dev.tern.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.services.health.HealthStatusManager;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.services.reflection.ProtoReflectionService;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.TernCleanupExtension;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server's counts the State view shows ({@code POST /_tern/console/api/metrics}), over real
 * HTTP/1.1 after real calls (Connect unary, as the page makes them).
 */
class ServerMetricsTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private int port;

  private int start() throws Exception {
    Server server =
        cleanup.register(
            TernConsole.builder()
                .build()
                .addTo(
                    TernConsoleTest.loopback()
                        .addService(ProtoReflectionService.v1())
                        .addService(new HealthStatusManager().getHealthService()))
                .build()
                .start());
    port = server.getPort();
    return port;
  }

  /** A Connect unary call with a JSON body and {@code headers}; returns its HTTP status. */
  private int call(String method, String json, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + method))
            .header("content-type", "application/json")
            .header("connect-protocol-version", "1")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(request::header);
    return TernConsoleTest.CLIENT
        .send(request.build(), HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  private HttpResponse<String> metrics(String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/_tern/console/api/metrics"))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("x-tern-console-token", token);
    }
    return TernConsoleTest.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void countsEachMethodsCallsByStatus_andCallsThatNeverReachedAHandler() throws Exception {
    start();
    String token = TernConsoleTest.tokenOf(TernConsoleTest.get(port, "/_tern/console/"));
    assertThat(metrics(token).body())
        .isEqualTo("{\"methods\":[],\"refused\":{},\"endedBeforeHandler\":{}}");

    String check = "grpc.health.v1.Health/Check";
    assertThat(call(check, "{\"service\": \"\"}", Map.of())).isEqualTo(200);
    assertThat(call(check, "{\"service\": \"\"}", Map.of())).isEqualTo(200);
    assertThat(call(check, "{\"service\": \"nope\"}", Map.of())).isEqualTo(404);
    // A deadline of zero: the call is refused once it reaches the server's executor.
    assertThat(call(check, "{}", Map.of("connect-timeout-ms", "0"))).isEqualTo(504);
    // Over gRPC (HTTP/2), which reports wire sizes to tracers (the web protocols do not): a call,
    // and one of a method the server does not have.
    ManagedChannel channel =
        cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
    // The answer SERVING is 2 bytes; the request for "nope" 6.
    HealthTern.newBlockingStub(channel).check(HealthCheckRequest.getDefaultInstance());
    assertThatThrownBy(
            () ->
                HealthTern.newBlockingStub(channel)
                    .check(HealthCheckRequest.newBuilder().setService("nope").build()))
        .hasMessageStartingWith("NOT_FOUND");
    MethodDescriptor<HealthCheckRequest, HealthCheckResponse> unknown =
        HealthTern.getCheckMethod().toBuilder()
            .setFullMethodName("grpc.health.v1.Health/Nope")
            .build();
    assertThatThrownBy(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, unknown, CallOptions.DEFAULT, HealthCheckRequest.getDefaultInstance()))
        .hasMessageStartingWith("UNIMPLEMENTED");

    // A server's tracer hears a call end after the client has its answer: ask until the counts
    // include the last call (each answer is a round trip; no sleeping), for at most 10 seconds.
    String expected =
        "\\{\"methods\":\\[\\{\"method\":\"grpc.health.v1.Health/Check\",\"started\":6,"
            + "\"ended\":\\{\"OK\":3,\"DEADLINE_EXCEEDED\":1,\"NOT_FOUND\":2\\},"
            + "\"messagesReceived\":5,\"messagesSent\":3,"
            + "\"bytesReceived\":6,\"bytesSent\":2,\"nanos\":[1-9]\\d*\\}\\],"
            + "\"refused\":\\{\"DEADLINE_PASSED_IN_QUEUE\":1\\},"
            + "\"endedBeforeHandler\":\\{\"UNIMPLEMENTED\":1\\}\\}";
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    HttpResponse<String> response = metrics(token);
    while (!response.body().matches(expected) && System.nanoTime() < giveUp) {
      response = metrics(token);
    }

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.body()).matches(expected);
  }

  @Test
  void theEndpointNeedsTheTokenAndPost() throws Exception {
    start();

    HttpResponse<String> noToken = metrics(null);
    HttpResponse<String> wrongToken = metrics("00");
    HttpResponse<String> get = TernConsoleTest.get(port, "/_tern/console/api/metrics");

    assertThat(noToken.statusCode()).isEqualTo(403);
    assertThat(noToken.body()).doesNotContain("methods");
    assertThat(wrongToken.statusCode()).isEqualTo(403);
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("allow")).hasValue("POST");
  }
}
