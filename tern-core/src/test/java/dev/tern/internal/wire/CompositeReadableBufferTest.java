package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class CompositeReadableBufferTest {

  private final CompositeReadableBuffer composite = new CompositeReadableBuffer();
  private final TrackingReadableBuffer first = new TrackingReadableBuffer((byte) 1, (byte) 2);
  private final TrackingReadableBuffer second = new TrackingReadableBuffer((byte) 3);
  private final TrackingReadableBuffer third =
      new TrackingReadableBuffer((byte) 4, (byte) 5, (byte) 6);

  private void addAll() {
    composite.addBuffer(first);
    composite.addBuffer(second);
    composite.addBuffer(third);
  }

  @Test
  void readsAnIntAcrossComponentBoundaries() {
    addAll();

    assertThat(composite.readableBytes()).isEqualTo(6);
    assertThat(composite.readInt()).isEqualTo(0x01020304);
    assertThat(composite.readableBytes()).isEqualTo(2);
  }

  @Test
  void releasesEachComponentAsSoonAsItIsConsumed() {
    addAll();

    composite.readUnsignedByte();
    assertThat(first.isClosed()).isFalse();
    composite.readUnsignedByte();
    assertThat(first.isClosed()).isTrue();
    assertThat(second.isClosed()).isFalse();
    composite.skipBytes(2);
    assertThat(second.isClosed()).isTrue();
    assertThat(third.isClosed()).isFalse();
  }

  @Test
  void readBytesIntoArraysByteBuffersAndStreamsCrossesBoundaries() throws IOException {
    addAll();
    byte[] dest = new byte[3];
    composite.readBytes(dest, 0, 3);
    assertThat(dest).containsExactly(1, 2, 3);

    addAll2();
    ByteBuffer byteBuffer = ByteBuffer.allocate(10);
    byteBuffer.limit(5);
    composite.readBytes(byteBuffer);
    assertThat(byteBuffer.position()).isEqualTo(5);
    assertThat(byteBuffer.limit()).isEqualTo(5); // the caller's limit is restored
    assertThat(byteBuffer.array()).startsWith(4, 5, 6, 7, 8);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    composite.readBytes(out, 1);
    assertThat(out.toByteArray()).containsExactly(9);
    assertThat(composite.readableBytes()).isZero();
  }

  private void addAll2() {
    composite.addBuffer(ReadableBuffers.wrap(new byte[] {7, 8}));
    composite.addBuffer(ReadableBuffers.wrap(new byte[] {9}));
  }

  @Test
  void readBytesHandsOverComponentsWithoutCopying() {
    byte[] backing = {1, 2, 3, 4};
    composite.addBuffer(ReadableBuffers.wrap(backing));
    composite.addBuffer(ReadableBuffers.wrap(new byte[] {5, 6}));

    ReadableBuffer inFirst = composite.readBytes(2);
    assertThat(inFirst.hasArray()).isTrue();
    assertThat(inFirst.array()).isSameAs(backing);

    ReadableBuffer spanning = composite.readBytes(3);
    assertThat(spanning.readableBytes()).isEqualTo(3);
    byte[] dest = new byte[3];
    spanning.readBytes(dest, 0, 3);
    assertThat(dest).containsExactly(3, 4, 5);
    assertThat(composite.readableBytes()).isEqualTo(1);
    assertThat(composite.readUnsignedByte()).isEqualTo(6);
  }

  @Test
  void readBytesOfWholeComponentsMovesThemWithoutClosingThem() {
    addAll();

    ReadableBuffer moved = composite.readBytes(3);

    assertThat(first.isClosed()).isFalse();
    assertThat(second.isClosed()).isFalse();
    moved.close();
    assertThat(first.isClosed()).isTrue();
    assertThat(second.isClosed()).isTrue();
    assertThat(third.isClosed()).isFalse();
    assertThat(composite.readableBytes()).isEqualTo(3);
  }

  @Test
  void addingACompositeMovesItsComponents() {
    CompositeReadableBuffer other = new CompositeReadableBuffer();
    other.addBuffer(first);
    other.addBuffer(second);

    composite.addBuffer(other);
    composite.addBuffer(third);

    assertThat(other.readableBytes()).isZero();
    assertThat(composite.readableBytes()).isEqualTo(6);
    assertThat(composite.readInt()).isEqualTo(0x01020304);
  }

  @Test
  void emptyBuffersAreClosedOnArrival() {
    TrackingReadableBuffer empty = new TrackingReadableBuffer();

    composite.addBuffer(empty);

    assertThat(empty.isClosed()).isTrue();
    assertThat(composite.readableBytes()).isZero();
  }

  @Test
  void closeReleasesEveryComponentAndRefusesNewOnes() {
    addAll();
    composite.readUnsignedByte();

    composite.close();

    assertThat(first.closeCount()).isEqualTo(1);
    assertThat(second.closeCount()).isEqualTo(1);
    assertThat(third.closeCount()).isEqualTo(1);
    assertThat(composite.readableBytes()).isZero();
    TrackingReadableBuffer late = new TrackingReadableBuffer((byte) 9);
    assertThatThrownBy(() -> composite.addBuffer(late)).isInstanceOf(IllegalStateException.class);
    assertThat(late.isClosed()).isTrue();
  }

  @Test
  void underflowThrowsWithoutConsuming() {
    addAll();

    assertThatThrownBy(() -> composite.readBytes(7))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("only 6 readable");
    assertThat(composite.readableBytes()).isEqualTo(6);
    assertThat(composite.hasArray()).isFalse();
  }
}
