package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.KnownLength;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class ReadableBuffersTest {

  private static final byte[] BYTES = {0x12, 0x34, 0x56, 0x78, (byte) 0x9a, (byte) 0xbc, 0x01};

  @Test
  void wrappedArrayReadsBigEndianAndUnsigned() {
    ReadableBuffer buffer = ReadableBuffers.wrap(BYTES);

    assertThat(buffer.readableBytes()).isEqualTo(7);
    assertThat(buffer.readInt()).isEqualTo(0x12345678);
    assertThat(buffer.readUnsignedByte()).isEqualTo(0x9a);
    buffer.skipBytes(1);
    assertThat(buffer.readUnsignedByte()).isEqualTo(1);
    assertThat(buffer.readableBytes()).isZero();
  }

  @Test
  void readingPastTheEndThrowsAndConsumesNothing() {
    ReadableBuffer buffer = ReadableBuffers.wrap(BYTES, 5, 2);

    assertThatThrownBy(buffer::readInt)
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("only 2 readable");
    assertThat(buffer.readableBytes()).isEqualTo(2);
    assertThatThrownBy(() -> buffer.skipBytes(3)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> buffer.readBytes(-1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void wrapRejectsARangeOutsideTheArray() {
    assertThatThrownBy(() -> ReadableBuffers.wrap(BYTES, 5, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> ReadableBuffers.wrap((byte[]) null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void sliceSharesTheArrayAndAdvancesTheSource() {
    ReadableBuffer buffer = ReadableBuffers.wrap(BYTES, 1, 6);
    buffer.skipBytes(1);

    ReadableBuffer slice = buffer.readBytes(3);

    assertThat(slice.hasArray()).isTrue();
    assertThat(slice.array()).isSameAs(BYTES);
    assertThat(slice.arrayOffset()).isEqualTo(2);
    assertThat(slice.readableBytes()).isEqualTo(3);
    assertThat(slice.readUnsignedByte()).isEqualTo(0x56);
    assertThat(buffer.readableBytes()).isEqualTo(2);
    assertThat(buffer.readUnsignedByte()).isEqualTo(0xbc);
  }

  @Test
  void readsIntoArraysByteBuffersAndStreams() throws IOException {
    ReadableBuffer buffer = ReadableBuffers.wrap(BYTES);
    byte[] dest = new byte[4];
    buffer.readBytes(dest, 1, 2);
    assertThat(dest).containsExactly(0, 0x12, 0x34, 0);

    ByteBuffer byteBuffer = ByteBuffer.allocate(2);
    buffer.readBytes(byteBuffer);
    assertThat(byteBuffer.position()).isEqualTo(2);
    assertThat(byteBuffer.array()).containsExactly(0x56, 0x78);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    buffer.readBytes(out, 3);
    assertThat(out.toByteArray()).containsExactly(0x9a, 0xbc, 0x01);
    assertThat(buffer.readableBytes()).isZero();
  }

  @Test
  void byteBufferReadsBigEndianWhateverItsByteOrder() {
    ByteBuffer little = ByteBuffer.wrap(BYTES).order(ByteOrder.LITTLE_ENDIAN);
    ReadableBuffer buffer = ReadableBuffers.wrap(little);

    assertThat(buffer.readInt()).isEqualTo(0x12345678);
    assertThat(buffer.hasArray()).isTrue();
    assertThat(buffer.arrayOffset()).isEqualTo(4);
    ReadableBuffer slice = buffer.readBytes(2);
    assertThat(slice.readUnsignedByte()).isEqualTo(0x9a);
    assertThat(buffer.readUnsignedByte()).isEqualTo(0x01);
  }

  @Test
  void directByteBufferHasNoArrayButReadsToStreams() throws IOException {
    ByteBuffer direct = ByteBuffer.allocateDirect(BYTES.length);
    direct.put(BYTES).flip();
    ReadableBuffer buffer = ReadableBuffers.wrap(direct);

    assertThat(buffer.hasArray()).isFalse();
    assertThatThrownBy(buffer::array).isInstanceOf(UnsupportedOperationException.class);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    buffer.readBytes(out, BYTES.length);
    assertThat(out.toByteArray()).isEqualTo(BYTES);
  }

  @Test
  void emptyBufferHasNothingToRead() {
    ReadableBuffer empty = ReadableBuffers.empty();

    assertThat(empty.readableBytes()).isZero();
    assertThatThrownBy(empty::readUnsignedByte).isInstanceOf(IndexOutOfBoundsException.class);
    empty.close();
    assertThat(ReadableBuffers.empty().readableBytes()).isZero();
  }

  @Test
  void openStreamReportsExactAvailableAndReadsToTheEnd() throws IOException {
    InputStream in = ReadableBuffers.openStream(ReadableBuffers.wrap(BYTES), true);

    assertThat(in).isInstanceOf(KnownLength.class);
    assertThat(in.available()).isEqualTo(7);
    assertThat(in.read()).isEqualTo(0x12);
    assertThat(in.skip(2)).isEqualTo(2);
    byte[] rest = new byte[10];
    assertThat(in.read(rest, 0, 10)).isEqualTo(4);
    assertThat(in.read()).isEqualTo(-1);
    assertThat(in.read(rest, 0, 10)).isEqualTo(-1);
    assertThat(in.available()).isZero();
  }

  @Test
  void openStreamTransfersWithoutLoss() throws IOException {
    InputStream in = ReadableBuffers.openStream(ReadableBuffers.wrap(BYTES), true);
    in.read();
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    assertThat(in.transferTo(out)).isEqualTo(6);
    assertThat(out.toByteArray()).containsExactly(0x34, 0x56, 0x78, 0x9a, 0xbc, 0x01);
  }

  @Test
  void openStreamReadsAllOrSomeOfTheRestInArraysOfExactlyThatSize() throws IOException {
    InputStream in = ReadableBuffers.openStream(ReadableBuffers.wrap(BYTES), true);
    in.read();

    assertThat(in.readNBytes(2)).containsExactly(0x34, 0x56);
    assertThat(in.readAllBytes()).containsExactly(0x78, 0x9a, 0xbc, 0x01);
    assertThat(in.readAllBytes()).isEmpty();
    assertThat(in.readNBytes(5)).isEmpty();
    assertThatThrownBy(() -> in.readNBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("len");
    in.close();
    assertThatThrownBy(in::readAllBytes)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void closingAnOwningStreamReleasesTheBufferOnce() throws IOException {
    TrackingReadableBuffer buffer = new TrackingReadableBuffer(BYTES);
    InputStream in = ReadableBuffers.openStream(buffer, true);

    in.close();
    in.close();

    assertThat(buffer.closeCount()).isEqualTo(1);
    assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("closed");
  }

  @Test
  void closingANonOwningStreamLeavesTheBufferToItsOwner() throws IOException {
    TrackingReadableBuffer buffer = new TrackingReadableBuffer(BYTES);

    ReadableBuffers.openStream(buffer, false).close();

    assertThat(buffer.isClosed()).isFalse();
  }
}
