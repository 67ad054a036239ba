package dev.tern.internal.wire;

import static dev.tern.internal.wire.Frames.concat;
import static dev.tern.internal.wire.Frames.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Codec;
import dev.tern.KnownLength;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class MessageFramerTest {

  private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

  private final RecordingSink sink = new RecordingSink();
  private MessageFramer framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator());

  @Test
  void rawMessageGetsAZeroFlagAndBigEndianLength() {
    framer.writePayload(new ByteArrayInputStream(HELLO));
    framer.flush();

    assertThat(sink.deliveries).hasSize(1);
    RecordingSink.Delivery delivery = sink.deliveries.get(0);
    assertThat(delivery.bytes).containsExactly(0, 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o');
    assertThat(delivery.flush).isTrue();
    assertThat(delivery.endOfStream).isFalse();
    assertThat(delivery.numMessages).isEqualTo(1);
  }

  @Test
  void streamOfUnknownLengthIsFramedTheSame() {
    framer.writePayload(new UnknownLengthStream(HELLO));
    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(frame(0, HELLO));
  }

  @Test
  void lengthAbove16MiBUsesAllFourLengthBytes() {
    byte[] big = new byte[0x01020304];
    big[big.length - 1] = 42;

    framer.writePayload(new ByteArrayInputStream(big));
    framer.close();

    byte[] all = sink.allBytes();
    assertThat(Arrays.copyOf(all, 5)).containsExactly(0, 0x01, 0x02, 0x03, 0x04);
    assertThat(all).hasSize(5 + big.length);
    assertThat(all[all.length - 1]).isEqualTo((byte) 42);
  }

  @Test
  void emptyMessageIsJustAPrefix() {
    framer.writePayload(new ByteArrayInputStream(new byte[0]));
    framer.writePayload(new UnknownLengthStream(new byte[0]));
    framer.flush();

    assertThat(sink.allBytes()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    assertThat(sink.totalMessages()).isEqualTo(2);
  }

  @Test
  void compressedMessageHasFlagOneCompressedLengthAndGunzipsToTheOriginal() throws IOException {
    byte[] text = "abcabcabc".repeat(200).getBytes(StandardCharsets.US_ASCII);
    framer.setCompressor(new Codec.Gzip());

    framer.writePayload(new ByteArrayInputStream(text));
    framer.flush();

    byte[] all = sink.allBytes();
    int length =
        ((all[1] & 0xFF) << 24)
            | ((all[2] & 0xFF) << 16)
            | ((all[3] & 0xFF) << 8)
            | (all[4] & 0xFF);
    assertThat(all[0]).isEqualTo((byte) 1);
    assertThat(length).isEqualTo(all.length - 5).isLessThan(text.length / 10);
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(all, 5, all.length - 5))) {
      assertThat(in.readAllBytes()).isEqualTo(text);
    }
  }

  @Test
  void compressionCanBeTurnedOffPerMessage() throws IOException {
    framer.setCompressor(new Codec.Gzip());

    framer.setMessageCompression(false);
    framer.writePayload(new ByteArrayInputStream(HELLO));
    framer.setMessageCompression(true);
    framer.writePayload(new ByteArrayInputStream(HELLO));
    framer.flush();

    byte[] all = sink.allBytes();
    assertThat(Arrays.copyOf(all, 10)).isEqualTo(frame(0, HELLO));
    assertThat(all[10]).isEqualTo((byte) 1);
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(all, 15, all.length - 15))) {
      assertThat(in.readAllBytes()).isEqualTo(HELLO);
    }
    assertThat(sink.totalMessages()).isEqualTo(2);
  }

  @Test
  void identityCompressorSendsUncompressed() {
    framer.setCompressor(Codec.Identity.NONE);

    framer.writePayload(new ByteArrayInputStream(HELLO));
    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(frame(0, HELLO));
  }

  @Test
  void oversizedMessageIsRejectedAndNothingOfItIsWritten() {
    framer.setMaxOutboundMessageSize(4);

    assertThatThrownBy(() -> framer.writePayload(new ByteArrayInputStream(HELLO)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription()).isEqualTo("message too large: 5 > 4");
            });
    framer.flush();
    assertThat(sink.deliveries).isEmpty();

    // The framer is still usable for messages within the limit.
    framer.writePayload(new ByteArrayInputStream(new byte[] {1, 2, 3, 4}));
    framer.flush();
    assertThat(sink.allBytes()).isEqualTo(frame(0, new byte[] {1, 2, 3, 4}));
  }

  @Test
  void oversizedStreamOfUnknownLengthReportsItsRealSize() {
    framer.setMaxOutboundMessageSize(4);
    framer.writePayload(new ByteArrayInputStream(HELLO.clone(), 0, 2)); // a small one first

    assertThatThrownBy(() -> framer.writePayload(new UnknownLengthStream(new byte[10_000])))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("message too large: 10000 > 4"));
    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(frame(0, new byte[] {'h', 'e'}));
  }

  @Test
  void compressedMessageIsLimitedByItsUncompressedSize() {
    framer.setCompressor(new Codec.Gzip());
    framer.setMaxOutboundMessageSize(100);

    // 1000 zeros compress to a few dozen bytes, but the receiver would still see 1000.
    assertThatThrownBy(() -> framer.writePayload(new UnknownLengthStream(new byte[1000])))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription()).isEqualTo("message too large: 1000 > 100");
            });
    framer.close();
    assertThat(sink.deliveries).hasSize(1);
    assertThat(sink.deliveries.get(0).bytes).isNull();
  }

  @Test
  void smallMessagesAreBatchedIntoOneFrameUntilFlush() {
    for (int i = 0; i < 100; i++) {
      framer.writePayload(new ByteArrayInputStream(new byte[] {(byte) i, 1, 2, 3, 4}));
    }
    assertThat(sink.deliveries).isEmpty();

    framer.flush();

    assertThat(sink.deliveries).hasSize(1);
    assertThat(sink.deliveries.get(0).numMessages).isEqualTo(100);
    assertThat(sink.deliveries.get(0).bytes).hasSize(100 * 10);
  }

  @Test
  void aMessageLargerThanABufferSpansSeveralFrames() {
    framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator(1, 64));
    byte[] body = new byte[200];
    Arrays.fill(body, (byte) 7);

    framer.writePayload(new ByteArrayInputStream(body));
    // Full buffers go out as soon as more room is needed, without a flush.
    assertThat(sink.deliveries).hasSize(3);
    assertThat(sink.deliveries).allSatisfy(d -> assertThat(d.flush).isFalse());
    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(frame(0, body));
    assertThat(sink.deliveries).hasSize(4);
    assertThat(sink.deliveries.get(3).numMessages).isEqualTo(1);
    assertThat(sink.totalMessages()).isEqualTo(1);
  }

  @Test
  void flushWithNothingPendingDoesNothing() {
    framer.flush();

    assertThat(sink.deliveries).isEmpty();
  }

  @Test
  void buffersPushedOutByLaterBytesAreUnflushedAndFlushCoversThem() {
    framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator(1, 10));
    framer.writePayload(new ByteArrayInputStream(HELLO)); // exactly fills the 10-byte buffer
    framer.writePayload(new ByteArrayInputStream(HELLO)); // pushes the first buffer out
    framer.flush();
    framer.flush(); // nothing new: no delivery

    assertThat(sink.deliveries).hasSize(2);
    assertThat(sink.deliveries.get(0).flush).isFalse();
    assertThat(sink.deliveries.get(1).flush).isTrue();
  }

  @Test
  void prefixesMaySpanBufferBoundaries() {
    framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator(1, 3));
    framer.writePayload(new ByteArrayInputStream(HELLO));
    framer.writePayload(new ByteArrayInputStream(new byte[0]));

    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(concat(frame(0, HELLO), frame(0, new byte[0])));
    assertThat(sink.deliveries).hasSize(5);
    assertThat(sink.deliveries.get(4).flush).isTrue();
    assertThat(sink.deliveries.get(4).numMessages).isEqualTo(1);
    assertThat(sink.totalMessages()).isEqualTo(2);
  }

  @Test
  void closeDeliversTheRestWithEndOfStreamOnce() {
    framer.writePayload(new ByteArrayInputStream(HELLO));

    framer.close();
    framer.close();
    framer.flush();

    assertThat(sink.deliveries).hasSize(1);
    RecordingSink.Delivery last = sink.deliveries.get(0);
    assertThat(last.bytes).isEqualTo(frame(0, HELLO));
    assertThat(last.endOfStream).isTrue();
    assertThat(last.flush).isTrue();
    assertThat(last.numMessages).isEqualTo(1);
    assertThat(framer.isClosed()).isTrue();
  }

  @Test
  void closeWithNothingPendingDeliversANullFrameWithEndOfStream() {
    framer.close();

    assertThat(sink.deliveries).hasSize(1);
    assertThat(sink.deliveries.get(0).bytes).isNull();
    assertThat(sink.deliveries.get(0).endOfStream).isTrue();
    assertThat(sink.deliveries.get(0).numMessages).isZero();
  }

  @Test
  void writingAfterCloseFails() {
    framer.close();

    assertThatThrownBy(() -> framer.writePayload(new ByteArrayInputStream(HELLO)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void disposeReleasesThePendingBufferWithoutDelivering() {
    List<TrackingWritableBuffer> allocated = new ArrayList<>();
    framer =
        new MessageFramer(
            sink,
            hint -> {
              TrackingWritableBuffer buffer = new TrackingWritableBuffer(hint);
              allocated.add(buffer);
              return buffer;
            });
    framer.writePayload(new ByteArrayInputStream(HELLO));

    framer.dispose();
    framer.close();

    assertThat(sink.deliveries).isEmpty();
    assertThat(allocated).hasSize(1);
    assertThat(allocated.get(0).released).isTrue();
    assertThat(framer.isClosed()).isTrue();
  }

  @Test
  void messageStreamIsClosedAfterFraming() {
    UnknownLengthStream unknown = new UnknownLengthStream(HELLO);
    UnknownLengthStream compressed = new UnknownLengthStream(HELLO);

    framer.writePayload(unknown);
    framer.setCompressor(new Codec.Gzip());
    framer.writePayload(compressed);

    assertThat(unknown.closed).isTrue();
    assertThat(compressed.closed).isTrue();
  }

  @Test
  void knownLengthStreamIsWrittenDirectlyAndALyingOneIsAnInternalError() {
    framer.writePayload(new KnownLengthStream(HELLO, HELLO.length));
    framer.flush();
    assertThat(sink.allBytes()).isEqualTo(frame(0, HELLO));

    assertThatThrownBy(() -> framer.writePayload(new KnownLengthStream(HELLO, 3)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getDescription()).contains("5 != 3");
            });
  }

  @Test
  void readFailureBecomesInternalWithTheCause() {
    IOException failure = new IOException("disk on fire");
    InputStream failing =
        new InputStream() {
          @Override
          public int read() throws IOException {
            throw failure;
          }
        };

    assertThatThrownBy(() -> framer.writePayload(failing))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
              assertThat(e.getStatus().getCause()).isSameAs(failure);
            });
  }

  @Test
  void readableBufferStreamsAreFramedWithoutLoss() {
    framer.writePayload(ReadableBuffers.openStream(ReadableBuffers.wrap(HELLO), true));
    framer.flush();

    assertThat(sink.allBytes()).isEqualTo(frame(0, HELLO));
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> framer.setMaxOutboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxOutboundMessageSize");
    assertThatThrownBy(() -> framer.writePayload(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
    assertThatThrownBy(() -> framer.setCompressor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("compressor");
    assertThatThrownBy(() -> new MessageFramer(null, new ByteArrayWritableBufferAllocator()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("sink");
    assertThatThrownBy(() -> new MessageFramer(sink, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("allocator");
  }

  @Test
  void manyMessagesOfMixedKindsConcatenateExactly() {
    framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator(1, 7));
    byte[][] bodies = {HELLO, new byte[0], new byte[300], "x".getBytes(StandardCharsets.UTF_8)};
    byte[] expected = new byte[0];
    for (byte[] body : bodies) {
      framer.writePayload(new UnknownLengthStream(body));
      framer.writePayload(new ByteArrayInputStream(body));
      expected = concat(expected, frame(0, body), frame(0, body));
    }
    framer.close();

    assertThat(sink.allBytes()).isEqualTo(expected);
    assertThat(sink.totalMessages()).isEqualTo(8);
  }

  /** A stream that hides its length, as a lazily serializing marshaller's might. */
  static final class UnknownLengthStream extends InputStream {
    private final ByteArrayInputStream in;
    boolean closed;

    UnknownLengthStream(byte[] bytes) {
      in = new ByteArrayInputStream(bytes);
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, len);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** A {@link KnownLength} stream that announces {@code announced} bytes. */
  private static final class KnownLengthStream extends InputStream implements KnownLength {
    private final ByteArrayInputStream in;
    private final int announced;

    KnownLengthStream(byte[] bytes, int announced) {
      this.in = new ByteArrayInputStream(bytes);
      this.announced = announced;
    }

    @Override
    public int available() {
      return announced;
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, len);
    }
  }

  private static final class TrackingWritableBuffer implements WritableBuffer {
    private final ByteArrayWritableBuffer delegate;
    boolean released;

    TrackingWritableBuffer(int capacity) {
      delegate = new ByteArrayWritableBuffer(capacity);
    }

    @Override
    public void write(byte[] src, int srcOffset, int length) {
      delegate.write(src, srcOffset, length);
    }

    @Override
    public void write(byte b) {
      delegate.write(b);
    }

    @Override
    public int writableBytes() {
      return delegate.writableBytes();
    }

    @Override
    public int readableBytes() {
      return delegate.readableBytes();
    }

    @Override
    public void release() {
      released = true;
      delegate.release();
    }
  }
}
