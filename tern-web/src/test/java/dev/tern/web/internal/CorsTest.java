package dev.tern.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Preflight handling, with a recording exchange. */
class CorsTest {
  private static FakeRequest preflight(String origin) {
    return FakeRequest.of("OPTIONS", "/tern.web.test.WebTest/Echo")
        .header("origin", origin)
        .header("access-control-request-method", "POST");
  }

  @Test
  void off_answersNoPreflight() {
    assertThat(new ConnectProtocol().handles(preflight("http://a.test"))).isFalse();
    assertThat(Cors.OFF.isPreflight(preflight("http://a.test"))).isFalse();
  }

  @Test
  void disallowedOrigin_gets403WithoutCorsHeaders() throws Exception {
    try (TestRuntime runtime = new TestRuntime(new WebTestService())) {
      ConnectProtocol protocol = new ConnectProtocol(new Cors(Set.of("http://a.test")));
      FakeExchange exchange = runtime.serve(protocol, preflight("http://b.test")).awaitEnd();

      assertThat(exchange.status()).isEqualTo(403);
      assertThat(exchange.headers().names()).noneMatch(n -> n.startsWith("access-control-"));
    }
  }

  @Test
  void anyOrigin_star() throws Exception {
    try (TestRuntime runtime = new TestRuntime(new WebTestService())) {
      GrpcWebProtocol protocol = new GrpcWebProtocol(new Cors(Set.of("*")));
      FakeExchange exchange = runtime.serve(protocol, preflight("http://b.test")).awaitEnd();

      assertThat(exchange.status()).isEqualTo(204);
      assertThat(exchange.header("access-control-allow-origin")).isEqualTo("http://b.test");
      assertThat(exchange.header("access-control-allow-methods")).isEqualTo("POST, GET");
      assertThat(exchange.header("vary")).isEqualTo("Origin");
    }
  }
}
