package dev.tern.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Metadata;
import org.junit.jupiter.api.Test;

class HeaderListSizeTest {
  @Test
  void countsNameValueAndOverheadPerEntry() {
    Metadata metadata = new Metadata();
    metadata.put(Metadata.Key.of("abc", Metadata.ASCII_STRING_MARSHALLER), "12345");
    metadata.put(Metadata.Key.of("abc", Metadata.ASCII_STRING_MARSHALLER), "1");

    assertThat(HeaderListSize.of(metadata)).isEqualTo((3 + 5 + 32) + (3 + 1 + 32));
  }

  @Test
  void countsBinaryValuesAtTheirBase64Length() {
    Metadata metadata = new Metadata();
    metadata.put(Metadata.Key.of("k-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[4]);

    // 4 bytes are "AAAAAA" in unpadded base64.
    assertThat(HeaderListSize.of(metadata)).isEqualTo(5 + 6 + 32);
  }

  @Test
  void emptyMetadataIsFree() {
    assertThat(HeaderListSize.of(new Metadata())).isZero();
  }
}
