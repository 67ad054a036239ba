package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;
import org.junit.jupiter.api.Test;

class CodecTest {

  private static final byte[] TEXT =
      "the quick brown fox jumps over the lazy dog, again and again and again"
          .repeat(20)
          .getBytes(StandardCharsets.UTF_8);

  @Test
  void gzipProducesStandardGzipThatShrinksRepetitiveText() throws IOException {
    byte[] compressed = compress(new Codec.Gzip(), TEXT);

    assertThat(compressed.length).isLessThan(TEXT.length / 4);
    assertThat(compressed[0] & 0xFF).isEqualTo(0x1f); // gzip magic number
    assertThat(compressed[1] & 0xFF).isEqualTo(0x8b);
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      assertThat(in.readAllBytes()).isEqualTo(TEXT);
    }
  }

  @Test
  void gzipRoundTrips() throws IOException {
    Codec gzip = new Codec.Gzip();
    assertThat(decompress(gzip, compress(gzip, TEXT))).isEqualTo(TEXT);
    assertThat(gzip.getMessageEncoding()).isEqualTo("gzip");
  }

  @Test
  void gzipRejectsDataThatIsNotGzip() {
    Codec gzip = new Codec.Gzip();
    assertThatThrownBy(() -> gzip.decompress(new ByteArrayInputStream(TEXT)))
        .isInstanceOf(ZipException.class);
  }

  @Test
  void deflateUsesZlibFormat() throws IOException {
    Codec deflate = new Codec.Deflate();
    byte[] compressed = compress(deflate, TEXT);

    assertThat(deflate.getMessageEncoding()).isEqualTo("deflate");
    // A zlib stream starts with CMF 0x78 (deflate, 32K window); raw deflate would not.
    assertThat(compressed[0] & 0xFF).isEqualTo(0x78);
    try (InputStream in = new InflaterInputStream(new ByteArrayInputStream(compressed))) {
      assertThat(in.readAllBytes()).isEqualTo(TEXT);
    }
    assertThat(decompress(deflate, compressed)).isEqualTo(TEXT);
  }

  @Test
  void identityReturnsTheStreamsThemselves() throws IOException {
    OutputStream out = new ByteArrayOutputStream();
    InputStream in = new ByteArrayInputStream(TEXT);

    assertThat(Codec.Identity.NONE.compress(out)).isSameAs(out);
    assertThat(Codec.Identity.NONE.decompress(in)).isSameAs(in);
    assertThat(Codec.Identity.NONE.getMessageEncoding()).isEqualTo("identity");
  }

  private static byte[] compress(Compressor compressor, byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = compressor.compress(bytes)) {
      out.write(data);
    }
    return bytes.toByteArray();
  }

  private static byte[] decompress(Decompressor decompressor, byte[] data) throws IOException {
    try (InputStream in = decompressor.decompress(new ByteArrayInputStream(data))) {
      return in.readAllBytes();
    }
  }
}
