package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteArrayWritableBufferTest {

  @Test
  void tracksWrittenAndWritableBytes() {
    ByteArrayWritableBuffer buffer = new ByteArrayWritableBuffer(4);

    buffer.write((byte) 7);
    buffer.write(new byte[] {1, 2, 3, 4}, 1, 3);

    assertThat(buffer.readableBytes()).isEqualTo(4);
    assertThat(buffer.writableBytes()).isZero();
    assertThat(buffer.toByteArray()).containsExactly(7, 2, 3, 4);
    ReadableBuffer readable = buffer.toReadableBuffer();
    assertThat(readable.readInt()).isEqualTo(0x07020304);
  }

  @Test
  void refusesToWritePastCapacity() {
    ByteArrayWritableBuffer buffer = new ByteArrayWritableBuffer(2);
    buffer.write((byte) 1);

    assertThatThrownBy(() -> buffer.write(new byte[2], 0, 2))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("only 1 writable");
    assertThat(buffer.readableBytes()).isEqualTo(1);
    assertThatThrownBy(() -> new ByteArrayWritableBuffer(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity");
  }

  @Test
  void allocatorClampsTheHint() {
    ByteArrayWritableBufferAllocator allocator = new ByteArrayWritableBufferAllocator(8, 16);

    assertThat(allocator.allocate(1).writableBytes()).isEqualTo(8);
    assertThat(allocator.allocate(12).writableBytes()).isEqualTo(12);
    assertThat(allocator.allocate(4096).writableBytes()).isEqualTo(16);
    assertThat(new ByteArrayWritableBufferAllocator().allocate(0).writableBytes()).isEqualTo(1);
    assertThatThrownBy(() -> new ByteArrayWritableBufferAllocator(0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minCapacity");
    assertThatThrownBy(() -> new ByteArrayWritableBufferAllocator(8, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxCapacity");
  }
}
