package dev.tern.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tern.Codec;
import dev.tern.Decompressor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes {@link MessageDeframer} with arbitrary inbound bytes, cut into arbitrary chunks and
 * interleaved with arbitrary {@code request} calls, against an independent reading of the gRPC
 * length-prefixed framing. Whatever the peer sends:
 *
 * <ul>
 *   <li>the messages delivered are exactly those the framing holds, in order, and never more bytes
 *       than were received (no message larger than the limit, even after decompression);
 *   <li>the deframer ends either cleanly or with one {@link StatusRuntimeException} whose code
 *       (RESOURCE_EXHAUSTED for a message over the limit, INTERNAL for a broken frame) and
 *       description say why, at the first frame that is wrong, and closes exactly once;
 *   <li>flow control is told about every consumed byte, and never more than arrived;
 *   <li>every buffer handed to it, and every slice it cut from them, is released.
 * </ul>
 *
 * <p>See docs/fuzzing.md for long runs.
 */
class MessageDeframerFuzzTest {
  private static final Codec[] CODECS = {
    Codec.Identity.NONE, new Codec.Gzip(), new Codec.Deflate()
  };

  @FuzzTest
  void deliversWhatTheFramingHoldsOrFailsWithAClearStatus(FuzzedDataProvider data) {
    int maxMessageSize = data.consumeInt(0, 1 << 16);
    Codec codec = CODECS[data.consumeInt(0, CODECS.length - 1)];
    int chunks = data.consumeInt(0, 8);
    int[] chunkSizes = new int[chunks];
    int[] requests = new int[chunks + 1];
    for (int i = 0; i < chunks; i++) {
      chunkSizes[i] = data.consumeInt(0, 64);
      requests[i] = data.consumeInt(0, 3);
    }
    requests[chunks] = data.consumeInt(0, 3);
    boolean endBeforeLastRequest = data.consumeBoolean();
    byte[] input = data.consumeRemainingAsBytes();

    Expected expected = Expected.parse(input, codec, maxMessageSize);
    Recorder recorder = new Recorder();
    MessageDeframer deframer = new MessageDeframer(recorder, codec, maxMessageSize);
    deframer.setFrameSizeListener(
        length ->
            assertThat(length)
                .as("announced length handed on")
                .isLessThanOrEqualTo(maxMessageSize));
    List<TrackingReadableBuffer> buffers = new ArrayList<>();
    int offset = 0;
    for (int i = 0; i <= chunks; i++) {
      if (requests[i] > 0) {
        deframer.request(requests[i]);
      }
      int size =
          i < chunks ? Math.min(chunkSizes[i], input.length - offset) : input.length - offset;
      TrackingReadableBuffer chunk =
          new TrackingReadableBuffer(Arrays.copyOfRange(input, offset, offset + size), buffers);
      offset += size;
      deframer.deframe(chunk);
    }
    if (endBeforeLastRequest) {
      deframer.closeWhenComplete();
      deframer.request(Integer.MAX_VALUE);
    } else {
      deframer.request(Integer.MAX_VALUE);
      deframer.closeWhenComplete();
    }

    assertThat(deframer.isClosed()).as("closed once everything was requested and ended").isTrue();
    assertThat(recorder.closedCount).as("deframerClosed calls").isEqualTo(1);
    assertThat(recorder.messages)
        .as("messages delivered")
        .containsExactlyElementsOf(expected.messages);
    if (expected.failure == null) {
      assertThat(recorder.failure).as("failure of a well-formed stream").isNull();
      assertThat(recorder.hasPartialMessage).isFalse();
      assertThat(recorder.bytesRead).as("bytes reported to flow control").isEqualTo(input.length);
    } else {
      assertThat(recorder.failure).as("failure, expected " + expected.failure).isNotNull();
      Status status = ((StatusRuntimeException) recorder.failure).getStatus();
      assertThat(status.getCode()).isEqualTo(expected.failure);
      assertThat(status.getDescription()).as("failure description").isNotBlank();
      assertThat(recorder.bytesRead)
          .as("bytes reported to flow control")
          .isLessThanOrEqualTo(input.length);
    }
    for (TrackingReadableBuffer buffer : buffers) {
      assertThat(buffer.isClosed()).as("buffer released: " + buffer).isTrue();
    }
  }

  /** What one delivered message gave its reader. */
  private static String outcome(InputStream message) {
    try (InputStream in = message) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] chunk = new byte[4096];
      int n;
      while ((n = in.read(chunk, 0, chunk.length)) != -1) {
        out.write(chunk, 0, n);
      }
      return "bytes " + hex(out.toByteArray());
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getDescription()).isNotBlank();
      return "status " + e.getStatus().getCode();
    } catch (IOException e) {
      return "IOException";
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder sb = new StringBuilder();
    for (byte b : bytes) {
      sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return sb.toString();
  }

  /** The outcome the framing calls for, read straight from the whole input. */
  private static final class Expected {
    final List<String> messages = new ArrayList<>();
    Status.Code failure;

    static Expected parse(byte[] input, Decompressor decompressor, int maxMessageSize) {
      Expected expected = new Expected();
      ByteBuffer in = ByteBuffer.wrap(input);
      while (in.hasRemaining()) {
        if (in.remaining() < GrpcFrame.HEADER_LENGTH) {
          expected.failure = Status.Code.INTERNAL; // ends inside a prefix
          return expected;
        }
        int flags = in.get() & 0xFF;
        long length = Integer.toUnsignedLong(in.getInt());
        boolean compressed = (flags & 1) != 0;
        if ((flags & 0xFE) != 0 || (compressed && decompressor == Codec.Identity.NONE)) {
          expected.failure = Status.Code.INTERNAL;
          return expected;
        }
        if (length > maxMessageSize) {
          expected.failure = Status.Code.RESOURCE_EXHAUSTED;
          return expected;
        }
        if (in.remaining() < length) {
          expected.failure = Status.Code.INTERNAL; // ends inside a body
          return expected;
        }
        byte[] body = new byte[(int) length];
        in.get(body);
        if (!compressed) {
          expected.messages.add("bytes " + hex(body));
          continue;
        }
        InputStream decompressed;
        try {
          decompressed = decompressor.decompress(new ByteArrayInputStream(body));
        } catch (IOException e) {
          expected.failure = Status.Code.INTERNAL; // cannot even start decompressing
          return expected;
        }
        expected.messages.add(readBounded(decompressed, maxMessageSize));
      }
      return expected;
    }

    private static String readBounded(InputStream in, int maxMessageSize) {
      try (in) {
        byte[] bytes = in.readNBytes(maxMessageSize + 1);
        return bytes.length > maxMessageSize
            ? "status " + Status.Code.RESOURCE_EXHAUSTED
            : "bytes " + hex(bytes);
      } catch (IOException e) {
        return "IOException";
      }
    }
  }

  private static final class Recorder implements MessageDeframer.Listener {
    final List<String> messages = new ArrayList<>();
    Throwable failure;
    int closedCount;
    boolean hasPartialMessage;
    long bytesRead;

    @Override
    public void messageRead(InputStream message) {
      messages.add(outcome(message));
    }

    @Override
    public void deframerClosed(boolean hasPartialMessage) {
      closedCount++;
      this.hasPartialMessage = hasPartialMessage;
    }

    @Override
    public void deframeFailed(Throwable cause) {
      assertThat(failure).as("a second failure after " + failure).isNull();
      assertThat(cause).isInstanceOf(StatusRuntimeException.class);
      failure = cause;
    }

    @Override
    public void bytesRead(int numBytes) {
      assertThat(numBytes).isPositive();
      bytesRead += numBytes;
    }
  }
}
