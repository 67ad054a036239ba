package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import org.junit.jupiter.api.Test;

class CompressorRegistryTest {

  @Test
  void defaultInstanceKnowsGzipAndIdentity() {
    CompressorRegistry registry = CompressorRegistry.getDefaultInstance();

    assertThat(registry.lookupCompressor("gzip")).isInstanceOf(Codec.Gzip.class);
    assertThat(registry.lookupCompressor("identity")).isSameAs(Codec.Identity.NONE);
    assertThat(registry.lookupCompressor("snappy")).isNull();
    assertThat(CompressorRegistry.getDefaultInstance()).isSameAs(registry);
  }

  @Test
  void emptyInstanceKnowsNothingUntilRegistered() {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    assertThat(registry.lookupCompressor("identity")).isNull();

    Compressor custom = new NamedCompressor("x-custom");
    registry.register(custom);

    assertThat(registry.lookupCompressor("x-custom")).isSameAs(custom);
    assertThat(CompressorRegistry.getDefaultInstance().lookupCompressor("x-custom")).isNull();
    assertThat(CompressorRegistry.newEmptyInstance()).isNotSameAs(registry);
  }

  @Test
  void registeringTheSameNameReplaces() {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    Compressor first = new NamedCompressor("zstd");
    Compressor second = new NamedCompressor("zstd");

    registry.register(first);
    registry.register(second);

    assertThat(registry.lookupCompressor("zstd")).isSameAs(second);
  }

  @Test
  void rejectsNamesThatCannotAppearInAHeaderList() {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();

    assertThatThrownBy(() -> registry.register(new NamedCompressor("gzip,br")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gzip,br");
    assertThatThrownBy(() -> registry.register(new NamedCompressor("")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> registry.register(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("compressor");
    assertThatThrownBy(() -> registry.lookupCompressor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
  }

  private static final class NamedCompressor implements Compressor {
    private final String name;

    NamedCompressor(String name) {
      this.name = name;
    }

    @Override
    public String getMessageEncoding() {
      return name;
    }

    @Override
    public OutputStream compress(OutputStream os) {
      return os;
    }
  }
}
