package dev.tern.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.http.HttpServerProtocol;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class WebProtocolsTest {
  private static List<String> names(List<HttpServerProtocol> protocols) {
    return protocols.stream().map(p -> p.getClass().getSimpleName()).toList();
  }

  @Test
  void defaults_grpcWebThenConnect() {
    assertThat(names(WebProtocols.builder().build()))
        .containsExactly("GrpcWebProtocol", "ConnectProtocol");
    assertThat(names(WebProtocols.builder().grpcWeb(false).build()))
        .containsExactly("ConnectProtocol");
    assertThat(WebProtocols.builder().grpcWeb(false).connect(false).build()).isEmpty();
  }

  @Test
  void serviceLoaderFindsBoth() {
    List<String> found =
        ServiceLoader.load(HttpServerProtocol.class).stream()
            .map(p -> p.type().getSimpleName())
            .toList();
    assertThat(found).contains("GrpcWebProtocol", "ConnectProtocol");
  }

  @Test
  void emptyOrigin_isRefused() {
    assertThatThrownBy(() -> WebProtocols.builder().corsAllowedOrigins(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("origin");
  }
}
