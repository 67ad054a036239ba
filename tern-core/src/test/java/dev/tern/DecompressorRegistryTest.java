package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DecompressorRegistryTest {

  @Test
  void defaultInstanceAdvertisesGzipAndIdentity() {
    DecompressorRegistry registry = DecompressorRegistry.getDefaultInstance();

    assertThat(registry.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity");
    assertThat(registry.getRawAdvertisedMessageEncodings())
        .isEqualTo("gzip,identity".getBytes(StandardCharsets.US_ASCII));
    assertThat(registry.getKnownMessageEncodings()).containsExactly("gzip", "identity");
    assertThat(registry.getAdvertisedMessageEncodings()).containsExactly("gzip", "identity");
    assertThat(registry.lookupDecompressor("gzip")).isInstanceOf(Codec.Gzip.class);
    assertThat(registry.lookupDecompressor("identity")).isSameAs(Codec.Identity.NONE);
    assertThat(registry.lookupDecompressor("br")).isNull();
  }

  @Test
  void rawHeaderIsComputedOnceAndShared() {
    DecompressorRegistry registry = DecompressorRegistry.getDefaultInstance();

    assertThat(registry.getRawAdvertisedMessageEncodings())
        .isSameAs(registry.getRawAdvertisedMessageEncodings());
  }

  @Test
  void withReturnsANewRegistryAndLeavesTheOriginalAlone() {
    DecompressorRegistry base = DecompressorRegistry.getDefaultInstance();

    DecompressorRegistry extended = base.with(new Codec.Deflate(), true);

    assertThat(extended.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity,deflate");
    assertThat(extended.lookupDecompressor("deflate")).isInstanceOf(Codec.Deflate.class);
    assertThat(base.lookupDecompressor("deflate")).isNull();
    assertThat(base.getAdvertisedMessageEncodingsHeader()).isEqualTo("gzip,identity");
  }

  @Test
  void unadvertisedDecompressorIsKnownButNotInTheHeader() {
    DecompressorRegistry registry =
        DecompressorRegistry.emptyInstance()
            .with(Codec.Identity.NONE, true)
            .with(new Codec.Gzip(), false);

    assertThat(registry.getKnownMessageEncodings()).containsExactly("identity", "gzip");
    assertThat(registry.getAdvertisedMessageEncodings()).containsExactly("identity");
    assertThat(registry.getAdvertisedMessageEncodingsHeader()).isEqualTo("identity");
    assertThat(registry.lookupDecompressor("gzip")).isNotNull();
  }

  @Test
  void replacingAnEncodingKeepsItsPlaceAndTakesTheNewAdvertisement() {
    Codec otherGzip = new Codec.Gzip();
    DecompressorRegistry registry =
        DecompressorRegistry.getDefaultInstance().with(otherGzip, false);

    assertThat(registry.lookupDecompressor("gzip")).isSameAs(otherGzip);
    assertThat(registry.getKnownMessageEncodings()).containsExactly("gzip", "identity");
    assertThat(registry.getAdvertisedMessageEncodingsHeader()).isEqualTo("identity");
  }

  @Test
  void emptyInstanceHasAnEmptyHeader() {
    DecompressorRegistry empty = DecompressorRegistry.emptyInstance();

    assertThat(empty.getKnownMessageEncodings()).isEmpty();
    assertThat(empty.getAdvertisedMessageEncodingsHeader()).isEmpty();
    assertThat(empty.getRawAdvertisedMessageEncodings()).isEmpty();
    assertThat(empty.lookupDecompressor("identity")).isNull();
  }

  @Test
  void encodingSetsAreUnmodifiable() {
    DecompressorRegistry registry = DecompressorRegistry.getDefaultInstance();

    assertThatThrownBy(() -> registry.getKnownMessageEncodings().add("br"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> registry.getAdvertisedMessageEncodings().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void rejectsBadArguments() {
    DecompressorRegistry registry = DecompressorRegistry.emptyInstance();
    Decompressor spaced =
        new Decompressor() {
          @Override
          public String getMessageEncoding() {
            return "x gzip";
          }

          @Override
          public InputStream decompress(InputStream is) {
            return is;
          }
        };

    assertThatThrownBy(() -> registry.with(spaced, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x gzip");
    assertThatThrownBy(() -> registry.with(null, true))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("decompressor");
    assertThatThrownBy(() -> registry.lookupDecompressor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("encoding");
  }
}
