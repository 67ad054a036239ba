package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetadataTest {
  private static final Metadata.Key<String> USER =
      Metadata.Key.of("user", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TRACE =
      Metadata.Key.of("trace-id", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> BLOB =
      Metadata.Key.of("blob-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** A non-String type, to check that marshallers are applied both ways. */
  private static final Metadata.Key<Integer> COUNT =
      Metadata.Key.of(
          "count",
          new Metadata.AsciiMarshaller<Integer>() {
            @Override
            public String toAsciiString(Integer value) {
              return value.toString();
            }

            @Override
            public Integer parseAsciiString(String serialized) {
              return Integer.valueOf(serialized);
            }
          });

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void keyNamesAreLowerCasedAndKeepTheOriginal() {
    Metadata.Key<String> key = Metadata.Key.of("X-Request-ID", Metadata.ASCII_STRING_MARSHALLER);
    assertThat(key.name()).isEqualTo("x-request-id");
    assertThat(key.originalName()).isEqualTo("X-Request-ID");
    assertThat(key.asciiName()).isEqualTo(ascii("x-request-id"));
    assertThat(key.asciiName()).as("cached").isSameAs(key.asciiName());
  }

  @Test
  void keysAreEqualByName() {
    Metadata.Key<String> upper = Metadata.Key.of("USER", Metadata.ASCII_STRING_MARSHALLER);
    assertThat(upper).isEqualTo(USER).hasSameHashCodeAs(USER);
    assertThat(upper).isNotEqualTo(TRACE);
  }

  @Test
  void mixedCaseKeyFindsLowerCaseEntries() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "alice");
    assertThat(metadata.get(Metadata.Key.of("User", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("alice");
  }

  @Test
  void keyAllowsEveryPermittedCharacter() {
    String name = "abcdefghijklmnopqrstuvwxyz0123456789_.-";
    assertThat(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER).name()).isEqualTo(name);
  }

  @Test
  void emptyKeyNameIsRejected() {
    assertThatThrownBy(() -> Metadata.Key.of("", Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void pseudoHeaderKeyNameIsRejected() {
    assertThatThrownBy(() -> Metadata.Key.of(":path", Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(":path")
        .hasMessageContaining("pseudo-header");
  }

  @ParameterizedTest
  @ValueSource(strings = {"has space", "colon:inside", "slash/", "tab\t", "uml\u00e4ut", "a=b"})
  void keyNameWithInvalidCharacterIsRejectedNamingIt(String name) {
    assertThatThrownBy(() -> Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + name + "'")
        .hasMessageContaining("invalid character");
  }

  @Test
  void invalidCharacterMessageNamesTheCharacterAndIndex() {
    assertThatThrownBy(() -> Metadata.Key.of("ab cd", Metadata.ASCII_STRING_MARSHALLER))
        .hasMessageContaining("' '")
        .hasMessageContaining("index 2");
  }

  @Test
  void nullKeyNameOrMarshallerIsRejected() {
    assertThatThrownBy(() -> Metadata.Key.of(null, Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
    assertThatThrownBy(() -> Metadata.Key.of("a", (Metadata.AsciiMarshaller<String>) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("marshaller");
  }

  @Test
  void grpcPrefixedKeysAreAllowedForTheRuntime() {
    assertThat(Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER).name())
        .isEqualTo("grpc-status");
  }

  @Test
  void asciiMarshallerOnBinaryNameIsRejected() {
    assertThatThrownBy(() -> Metadata.Key.of("blob-bin", Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blob-bin")
        .hasMessageContaining("-bin");
  }

  @Test
  void binaryMarshallerOnAsciiNameIsRejected() {
    assertThatThrownBy(() -> Metadata.Key.of("blob", Metadata.BINARY_BYTE_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blob")
        .hasMessageContaining("must end in -bin");
  }

  @Test
  void upperCaseBinSuffixCountsAsBinary() {
    assertThat(Metadata.Key.of("Blob-BIN", Metadata.BINARY_BYTE_MARSHALLER).name())
        .isEqualTo("blob-bin");
    assertThatThrownBy(() -> Metadata.Key.of("Blob-BIN", Metadata.ASCII_STRING_MARSHALLER))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"line\nbreak", "tab\there", "del\u007f", "caf\u00e9", "smile\u263a"})
  void nonPrintableAsciiValueIsRejected(String value) {
    Metadata metadata = new Metadata();
    assertThatThrownBy(() -> metadata.put(USER, value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("printable ASCII");
    assertThat(metadata.headerCount()).isZero();
  }

  @Test
  void invalidValueMessageNamesIndexAndCharacter() {
    assertThatThrownBy(() -> Metadata.ASCII_STRING_MARSHALLER.toAsciiString("ab\ncd"))
        .hasMessageContaining("U+000A")
        .hasMessageContaining("index 2");
  }

  @Test
  void customAsciiMarshallerOutputIsValidatedToo() {
    Metadata.Key<String> sloppy =
        Metadata.Key.of(
            "sloppy",
            new Metadata.AsciiMarshaller<String>() {
              @Override
              public String toAsciiString(String value) {
                return value + "\r\n";
              }

              @Override
              public String parseAsciiString(String serialized) {
                return serialized;
              }
            });
    assertThatThrownBy(() -> new Metadata().put(sloppy, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void printableAsciiBoundariesAreAccepted() {
    Metadata metadata = new Metadata();
    metadata.put(USER, " ~");
    assertThat(metadata.get(USER)).isEqualTo(" ~");
  }

  @Test
  void putNullValueIsRejected() {
    assertThatThrownBy(() -> new Metadata().put(USER, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("value");
  }

  @Test
  void getReturnsTheLastValue() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "first");
    metadata.put(TRACE, "t");
    metadata.put(USER, "second");
    assertThat(metadata.get(USER)).isEqualTo("second");
    assertThat(metadata.get(Metadata.Key.of("absent", Metadata.ASCII_STRING_MARSHALLER))).isNull();
  }

  @Test
  void getAllReturnsValuesInInsertionOrderOrNull() {
    Metadata metadata = new Metadata();
    assertThat(metadata.getAll(USER)).isNull();
    metadata.put(USER, "a");
    metadata.put(TRACE, "t");
    metadata.put(USER, "b");
    metadata.put(USER, "c");
    assertThat(metadata.getAll(USER)).containsExactly("a", "b", "c");
  }

  @Test
  void getAllIsASnapshot() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "a");
    Iterable<String> values = metadata.getAll(USER);
    metadata.put(USER, "b");
    metadata.discardAll(USER);
    assertThat(values).containsExactly("a");
  }

  @Test
  void marshallerIsAppliedOnPutAndGet() {
    Metadata metadata = new Metadata();
    metadata.put(COUNT, 42);
    assertThat(metadata.get(COUNT)).isEqualTo(42);
    assertThat(metadata.toSerialized()[1]).isEqualTo(ascii("42"));
  }

  @Test
  void keysListsDistinctNamesInFirstAppearanceOrder() {
    Metadata metadata = new Metadata();
    metadata.put(TRACE, "t");
    metadata.put(USER, "a");
    metadata.put(TRACE, "u");
    metadata.put(BLOB, new byte[] {1});
    assertThat(metadata.keys()).containsExactly("trace-id", "user", "blob-bin");
    assertThat(new Metadata().keys()).isEmpty();
  }

  @Test
  void containsKeyReflectsPutsAndRemovals() {
    Metadata metadata = new Metadata();
    assertThat(metadata.containsKey(USER)).isFalse();
    metadata.put(USER, "a");
    assertThat(metadata.containsKey(USER)).isTrue();
    assertThat(metadata.containsKey(TRACE)).isFalse();
  }

  @Test
  void removeDeletesTheFirstEqualValueOnly() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "a");
    metadata.put(USER, "b");
    metadata.put(TRACE, "t");
    metadata.put(USER, "a");
    assertThat(metadata.remove(USER, "a")).isTrue();
    assertThat(metadata.getAll(USER)).containsExactly("b", "a");
    assertThat(metadata.get(TRACE)).isEqualTo("t");
    assertThat(metadata.remove(USER, "zzz")).isFalse();
    assertThat(metadata.remove(TRACE, "b")).isFalse();
    assertThat(metadata.headerCount()).isEqualTo(3);
  }

  @Test
  void removeComparesByteArraysByContent() {
    Metadata metadata = new Metadata();
    metadata.put(BLOB, new byte[] {1, 2});
    assertThat(metadata.remove(BLOB, new byte[] {1, 2})).isTrue();
    assertThat(metadata.containsKey(BLOB)).isFalse();
  }

  @Test
  void removeAllReturnsTheRemovedValuesAndKeepsOthersInOrder() {
    Metadata metadata = new Metadata();
    metadata.put(TRACE, "t1");
    metadata.put(USER, "a");
    metadata.put(TRACE, "t2");
    metadata.put(USER, "b");
    assertThat(metadata.removeAll(USER)).containsExactly("a", "b");
    assertThat(metadata.containsKey(USER)).isFalse();
    assertThat(metadata.getAll(TRACE)).containsExactly("t1", "t2");
    assertThat(metadata.headerCount()).isEqualTo(2);
    assertThat(metadata.removeAll(USER)).isNull();
  }

  @Test
  void discardAllRemovesOnlyThatKey() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "a");
    metadata.put(TRACE, "t1");
    metadata.put(USER, "b");
    metadata.put(BLOB, new byte[] {9});
    metadata.put(TRACE, "t2");
    metadata.discardAll(USER);
    assertThat(metadata.containsKey(USER)).isFalse();
    assertThat(metadata.getAll(TRACE)).containsExactly("t1", "t2");
    assertThat(metadata.get(BLOB)).containsExactly(9);
    assertThat(metadata.headerCount()).isEqualTo(3);
    assertThat(metadata.toSerialized().length).isEqualTo(6);
  }

  @Test
  void discardAllOfAbsentKeyChangesNothing() {
    Metadata metadata = new Metadata();
    metadata.discardAll(USER);
    metadata.put(TRACE, "t");
    metadata.discardAll(USER);
    assertThat(metadata.headerCount()).isEqualTo(1);
  }

  @Test
  void putAfterRemovalsReusesTheArrayCorrectly() {
    Metadata metadata = new Metadata();
    for (int i = 0; i < 10; i++) {
      metadata.put(USER, "u" + i);
      metadata.put(TRACE, "t" + i);
    }
    metadata.discardAll(USER);
    metadata.put(USER, "last");
    assertThat(metadata.headerCount()).isEqualTo(11);
    assertThat(metadata.getAll(USER)).containsExactly("last");
    assertThat(metadata.get(TRACE)).isEqualTo("t9");
  }

  @Test
  void mergeAppendsEverythingInOrder() {
    Metadata target = new Metadata();
    target.put(USER, "a");
    Metadata other = new Metadata();
    other.put(TRACE, "t");
    other.put(USER, "b");
    target.merge(other);
    assertThat(target.getAll(USER)).containsExactly("a", "b");
    assertThat(target.get(TRACE)).isEqualTo("t");
    assertThat(target.headerCount()).isEqualTo(3);
    assertThat(other.headerCount()).as("source unchanged").isEqualTo(2);
  }

  @Test
  void mergeIntoEmptyAndFromEmpty() {
    Metadata target = new Metadata();
    Metadata other = new Metadata();
    target.merge(other);
    assertThat(target.headerCount()).isZero();
    other.put(USER, "a");
    target.merge(other);
    assertThat(target.get(USER)).isEqualTo("a");
  }

  @Test
  void mergeIntoItselfDuplicatesEntries() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "a");
    metadata.put(TRACE, "t");
    metadata.merge(metadata);
    assertThat(metadata.getAll(USER)).containsExactly("a", "a");
    assertThat(metadata.headerCount()).isEqualTo(4);
  }

  @Test
  void mergeSelectedKeysCopiesOnlyThose() {
    Metadata other = new Metadata();
    other.put(USER, "a");
    other.put(TRACE, "t");
    other.put(BLOB, new byte[] {7});
    other.put(USER, "b");
    Metadata target = new Metadata();
    target.put(TRACE, "mine");
    target.merge(other, Set.of(USER, BLOB));
    assertThat(target.getAll(USER)).containsExactly("a", "b");
    assertThat(target.get(BLOB)).containsExactly(7);
    assertThat(target.getAll(TRACE)).containsExactly("mine");
  }

  @Test
  void fromSerializedUsesTheGivenArrayWithoutCopying() {
    byte[][] namesAndValues = new byte[8][];
    namesAndValues[0] = ascii("user");
    namesAndValues[1] = ascii("alice");
    namesAndValues[2] = ascii("blob-bin");
    namesAndValues[3] = new byte[] {0, (byte) 0xFF};
    Metadata metadata = Metadata.fromSerialized(namesAndValues, 2);
    assertThat(metadata.headerCount()).isEqualTo(2);
    assertThat(metadata.get(USER)).isEqualTo("alice");
    assertThat(metadata.get(BLOB)).containsExactly(0, 0xFF);

    // Ownership passed: spare capacity in the array is used for the next put.
    metadata.put(TRACE, "t");
    assertThat(namesAndValues[4]).isEqualTo(ascii("trace-id"));
    assertThat(namesAndValues[5]).isEqualTo(ascii("t"));
  }

  @Test
  void toSerializedIsExactlySizedAndRoundTrips() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "alice");
    metadata.put(BLOB, new byte[] {1, 2, 3});
    metadata.put(USER, "bob");
    byte[][] serialized = metadata.toSerialized();
    assertThat(serialized.length).isEqualTo(6);
    assertThat(serialized[0]).isEqualTo(ascii("user"));
    assertThat(serialized[3]).as("binary values raw, not base64").containsExactly(1, 2, 3);

    Metadata copy = Metadata.fromSerialized(serialized, 3);
    assertThat(copy.getAll(USER)).containsExactly("alice", "bob");
    assertThat(copy.get(BLOB)).containsExactly(1, 2, 3);
    assertThat(new Metadata().toSerialized()).isEmpty();
  }

  @Test
  void toSerializedReturnsANewArrayEachTime() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "a");
    byte[][] first = metadata.toSerialized();
    first[1] = ascii("changed");
    assertThat(metadata.get(USER)).isEqualTo("a");
  }

  @Test
  void fromSerializedRejectsBadCounts() {
    assertThatThrownBy(() -> Metadata.fromSerialized(new byte[3][], 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("headerCount 2");
    assertThatThrownBy(() -> Metadata.fromSerialized(new byte[4][], -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Metadata.fromSerialized(null, 0))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("namesAndValues");
  }

  @Test
  void binaryValuesKeepAll256ByteValues() {
    byte[] all = new byte[256];
    for (int i = 0; i < all.length; i++) {
      all[i] = (byte) i;
    }
    Metadata metadata = new Metadata();
    metadata.put(BLOB, all);
    byte[][] serialized = metadata.toSerialized();
    Metadata received = Metadata.fromSerialized(serialized, 1);
    assertThat(received.get(BLOB)).isEqualTo(all);
  }

  @Test
  void largeValuesAreStoredIntact() {
    byte[] big = new byte[64 * 1024];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31);
    }
    char[] chars = new char[64 * 1024];
    Arrays.fill(chars, 'x');
    String bigAscii = new String(chars);
    Metadata metadata = new Metadata();
    metadata.put(BLOB, big);
    metadata.put(USER, bigAscii);
    assertThat(metadata.get(BLOB)).isEqualTo(big);
    assertThat(metadata.get(USER)).isEqualTo(bigAscii);
  }

  @Test
  void manyEntriesGrowTheArray() {
    Metadata metadata = new Metadata();
    for (int i = 0; i < 1000; i++) {
      metadata.put(USER, Integer.toString(i));
    }
    assertThat(metadata.headerCount()).isEqualTo(1000);
    assertThat(metadata.get(USER)).isEqualTo("999");
    assertThat(metadata.getAll(USER)).hasSize(1000).startsWith("0", "1");
  }

  @Test
  void toStringShowsEntriesWithBinaryAsBase64() {
    Metadata metadata = new Metadata();
    metadata.put(USER, "alice");
    metadata.put(BLOB, new byte[] {(byte) 0xFB, (byte) 0xFF});
    assertThat(metadata.toString()).isEqualTo("Metadata(user=alice,blob-bin=+/8)");
  }

  @Test
  void nullKeysAreRejected() {
    Metadata metadata = new Metadata();
    assertThatThrownBy(() -> metadata.get(null)).hasMessage("key");
    assertThatThrownBy(() -> metadata.put(null, "x")).hasMessage("key");
    assertThatThrownBy(() -> metadata.containsKey(null)).hasMessage("key");
    assertThatThrownBy(() -> metadata.merge(null)).hasMessage("other");
  }
}
