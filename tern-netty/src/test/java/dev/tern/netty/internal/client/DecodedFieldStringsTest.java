package dev.tern.netty.internal.client;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

class DecodedFieldStringsTest {
  private final DecodedFieldStrings strings = new DecodedFieldStrings();

  @Test
  void theSameArrayIsWrappedOnceWithoutACopy() {
    byte[] status = "200".getBytes(US_ASCII);

    AsciiString wrapped = strings.of(status);

    assertThat(wrapped.toString()).isEqualTo("200");
    assertThat(wrapped.array()).isSameAs(status);
    assertThat((Object) strings.of(status)).isSameAs(wrapped);
  }

  @Test
  void anEqualButOtherArrayGetsAWrapperOfItsOwn() {
    byte[] first = "0".getBytes(US_ASCII);
    byte[] second = "0".getBytes(US_ASCII);

    assertThat(strings.of(first).array()).isSameAs(first);
    assertThat(strings.of(second).array()).isSameAs(second);
  }

  @Test
  void twoArraysWhoseHashNamesTheSameSlotAreBothKept() {
    // 33 arrays: by the pigeonhole principle two of them name the same one of the 32 slots.
    byte[][] byHome = new byte[32][];
    byte[] first = null;
    byte[] second = null;
    for (int i = 0; second == null; i++) {
      byte[] array = ("field-" + i).getBytes(US_ASCII);
      int home = System.identityHashCode(array) & 31;
      if (byHome[home] == null) {
        byHome[home] = array;
      } else {
        first = byHome[home];
        second = array;
      }
    }

    AsciiString firstWrapped = strings.of(first);
    AsciiString secondWrapped = strings.of(second);

    assertThat((Object) strings.of(first)).isSameAs(firstWrapped);
    assertThat((Object) strings.of(second)).isSameAs(secondWrapped);
  }

  @Test
  void everyArrayGetsItsOwnContentEvenWhenArraysShareASlot() {
    byte[][] arrays = new byte[200][];
    for (int i = 0; i < arrays.length; i++) {
      arrays[i] = ("field-" + i).getBytes(US_ASCII);
    }
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < arrays.length; i++) {
        AsciiString wrapped = strings.of(arrays[i]);
        assertThat(wrapped.toString()).isEqualTo("field-" + i);
        assertThat(wrapped.array()).isSameAs(arrays[i]);
      }
    }
  }

  @Test
  void longFieldsAreWrappedButNotKept() {
    byte[] message = "x".repeat(65).getBytes(US_ASCII);

    AsciiString wrapped = strings.of(message);

    assertThat(wrapped.length()).isEqualTo(65);
    assertThat((Object) strings.of(message)).isNotSameAs(wrapped);
  }
}
