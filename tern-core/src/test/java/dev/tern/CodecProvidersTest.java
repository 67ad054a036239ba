package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodecProvidersTest {

  @Test
  void availableProvidersAddTheirCodecsAfterTheBuiltIns() {
    Codec brotli = new NamedCodec("br");
    List<Codec> discovered =
        CodecProviders.availableCodecs(
            List.of(
                new FixedProvider(brotli, true), new FixedProvider(new NamedCodec("lz4"), false)));

    assertThat(discovered).containsExactly(brotli);
    DecompressorRegistry decompressors = DecompressorRegistry.withDiscovered(discovered);
    assertThat(decompressors.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity,br");
    assertThat(decompressors.lookupDecompressor("br")).isSameAs(brotli);
    assertThat(decompressors.lookupDecompressor("lz4")).isNull();
    CompressorRegistry compressors = CompressorRegistry.withDiscovered(discovered);
    assertThat(compressors.lookupCompressor("br")).isSameAs(brotli);
    assertThat(compressors.lookupCompressor("gzip")).isInstanceOf(Codec.Gzip.class);
    assertThat(compressors.lookupCompressor("lz4")).isNull();
  }

  @Test
  void theFirstAvailableProviderOfANameWinsAndMayReplaceABuiltIn() {
    Codec first = new NamedCodec("gzip");
    List<Codec> discovered =
        CodecProviders.availableCodecs(
            List.of(
                new FixedProvider(new NamedCodec("gzip"), false),
                new FixedProvider(first, true),
                new FixedProvider(new NamedCodec("gzip"), true)));

    assertThat(discovered).containsExactly(first);
    DecompressorRegistry decompressors = DecompressorRegistry.withDiscovered(discovered);
    assertThat(decompressors.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity");
    assertThat(decompressors.lookupDecompressor("gzip")).isSameAs(first);
    assertThat(CompressorRegistry.withDiscovered(discovered).lookupCompressor("gzip"))
        .isSameAs(first);
  }

  @Test
  void aCodecWithAnInvalidNameIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                CodecProviders.availableCodecs(
                    List.of(new FixedProvider(new NamedCodec("z std"), true))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'z std'");
  }

  @Test
  void aProviderWithoutACodecIsRefusedNamingIt() {
    FixedProvider empty = new FixedProvider(null, true);

    assertThatThrownBy(() -> CodecProviders.availableCodecs(List.of(empty)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage(empty + ".getCodec() returned null");
  }

  @Test
  void withoutProvidersOnThePathTheDefaultsAreTheBuiltIns() {
    // tern-core's tests have no provider on their path; tern-zstd's tests check the other case.
    assertThat(CodecProviders.DISCOVERED).isEmpty();
    assertThat(DecompressorRegistry.getDefaultInstance().getAdvertisedMessageEncodingsHeader())
        .isEqualTo("gzip,identity");
  }

  private static final class FixedProvider extends CodecProvider {
    private final Codec codec;
    private final boolean available;

    FixedProvider(Codec codec, boolean available) {
      this.codec = codec;
      this.available = available;
    }

    @Override
    public boolean isAvailable() {
      return available;
    }

    @Override
    public Codec getCodec() {
      return codec;
    }
  }

  /** A codec that only has a name: these tests never compress. */
  private static final class NamedCodec implements Codec {
    private final String name;

    NamedCodec(String name) {
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

    @Override
    public InputStream decompress(InputStream is) {
      return is;
    }
  }
}
