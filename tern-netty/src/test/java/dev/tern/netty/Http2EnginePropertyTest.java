package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.internal.codec.Http2EngineProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The system property {@code tern.http2.engine} as the builders read it: each value it knows puts
 * servers and clients where it says, and a value it does not know fails the builder with a message
 * naming the property, rather than quietly picking an implementation.
 */
class Http2EnginePropertyTest {
  private String saved;

  @BeforeEach
  void save() {
    saved = System.getProperty(Http2EngineProperty.NAME);
  }

  @AfterEach
  void restore() {
    if (saved == null) {
      System.clearProperty(Http2EngineProperty.NAME);
    } else {
      System.setProperty(Http2EngineProperty.NAME, saved);
    }
  }

  @Test
  void eachKnownValuePutsServersAndClientsWhereItSays() {
    assertOnEngine("tern", true, true);
    assertOnEngine("client", false, true);
    assertOnEngine("netty", false, false);
  }

  @Test
  void unsetPutsServersAndClientsOnTheEngine() {
    System.clearProperty(Http2EngineProperty.NAME);
    assertThat(Http2EngineProperty.serverOnEngine()).isTrue();
    assertThat(Http2EngineProperty.clientOnEngine()).isTrue();
  }

  @Test
  void anUnknownValueFailsTheBuildersNamingTheProperty() {
    System.setProperty(Http2EngineProperty.NAME, "Tern ");
    assertThatThrownBy(() -> NettyServerBuilder.forPort(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tern.http2.engine=Tern ")
        .hasMessageContaining("netty");
    assertThatThrownBy(() -> NettyChannelBuilder.forAddress("127.0.0.1", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tern.http2.engine=Tern ");
  }

  private static void assertOnEngine(String value, boolean server, boolean client) {
    System.setProperty(Http2EngineProperty.NAME, value);
    assertThat(Http2EngineProperty.serverOnEngine()).as("servers, %s", value).isEqualTo(server);
    assertThat(Http2EngineProperty.clientOnEngine()).as("clients, %s", value).isEqualTo(client);
  }
}
