package dev.tern.grpcjava.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * {@code spring.grpc.server.ssl.*}, which Spring gRPC's Netty factory turns into TLS, is not
 * applied by tern-grpc-java's auto-configuration: the application fails to start, saying so, rather
 * than serve in plaintext.
 */
class ServerSslPropertiesTest {

  @Test
  void serverSslPropertiesStopTheApplicationNamingThem() {
    SpringApplicationBuilder app =
        new SpringApplicationBuilder(SpringEchoApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.grpc.server.port=0",
                "spring.grpc.server.ssl.enabled=true",
                "spring.main.banner-mode=off");

    assertThatThrownBy(app::run)
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("spring.grpc.server.ssl is not applied");
  }
}
