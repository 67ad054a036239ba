package dev.tern.internal.wire;

import static dev.tern.internal.wire.Frames.concat;
import static dev.tern.internal.wire.Frames.frame;
import static dev.tern.internal.wire.Frames.gzip;
import static dev.tern.internal.wire.Frames.prefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Codec;
import dev.tern.KnownLength;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageDeframerTest {

  private static final int MAX = 1024 * 1024;
  private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] WORLD = "world!".getBytes(StandardCharsets.US_ASCII);

  private final RecordingListener listener = new RecordingListener();
  private MessageDeframer deframer = new MessageDeframer(listener, Codec.Identity.NONE, MAX);

  @Test
  void roundTripsWhatTheFramerProducesIncludingCompressedAndEmptyMessages() {
    RecordingSink sink = new RecordingSink();
    MessageFramer framer = new MessageFramer(sink, new ByteArrayWritableBufferAllocator());
    framer.setCompressor(new Codec.Gzip());
    List<byte[]> sent = List.of(HELLO, new byte[0], new byte[10_000], WORLD);
    boolean compress = false;
    for (byte[] message : sent) {
      framer.setMessageCompression(compress);
      framer.writePayload(new ByteArrayInputStream(message));
      compress = !compress;
    }
    framer.close();
    deframer.setDecompressor(new Codec.Gzip());

    deframer.request(Integer.MAX_VALUE);
    deframer.deframe(ReadableBuffers.wrap(sink.allBytes()));
    deframer.closeWhenComplete();

    assertThat(listener.messages).containsExactlyElementsOf(sent);
    assertThat(listener.closedWithPartialMessage).containsExactly(false);
    assertThat(listener.bytesRead).isEqualTo(sink.allBytes().length);
    assertThat(listener.failures).isEmpty();
  }

  @Test
  void feedingOneByteAtATimeGivesTheSameMessagesAndByteCount() {
    byte[] stream =
        concat(frame(0, HELLO), frame(0, new byte[0]), frame(1, gzip(WORLD)), frame(0, WORLD));
    deframer.setDecompressor(new Codec.Gzip());
    deframer.request(10);

    for (byte b : stream) {
      deframer.deframe(ReadableBuffers.wrap(new byte[] {b}));
    }
    deframer.closeWhenComplete();

    assertThat(listener.messages).containsExactly(HELLO, new byte[0], WORLD, WORLD);
    assertThat(listener.bytesRead).isEqualTo(stream.length);
    assertThat(listener.closedWithPartialMessage).containsExactly(false);
  }

  @Test
  void everySplitPointOfAStreamGivesTheSameMessages() {
    byte[] stream = concat(frame(0, HELLO), frame(0, WORLD));
    for (int split = 0; split <= stream.length; split++) {
      RecordingListener splitListener = new RecordingListener();
      MessageDeframer splitDeframer = new MessageDeframer(splitListener, Codec.Identity.NONE, MAX);
      splitDeframer.request(2);

      splitDeframer.deframe(ReadableBuffers.wrap(stream, 0, split));
      splitDeframer.deframe(ReadableBuffers.wrap(stream, split, stream.length - split));

      assertThat(splitListener.messages).as("split at %d", split).containsExactly(HELLO, WORLD);
      assertThat(splitListener.bytesRead).as("split at %d", split).isEqualTo(stream.length);
    }
  }

  @Test
  void requestGatesDelivery() {
    deframer.deframe(
        ReadableBuffers.wrap(concat(frame(0, HELLO), frame(0, WORLD), frame(0, HELLO))));
    assertThat(listener.messages).isEmpty();
    assertThat(deframer.hasPendingDeliveries()).isTrue();

    deframer.request(1);
    assertThat(listener.messages).containsExactly(HELLO);

    deframer.request(2);
    assertThat(listener.messages).containsExactly(HELLO, WORLD, HELLO);
    assertThat(deframer.hasPendingDeliveries()).isFalse();

    deframer.request(1); // nothing buffered: the request waits for data
    assertThat(listener.messages).hasSize(3);
    deframer.deframe(ReadableBuffers.wrap(frame(0, WORLD)));
    assertThat(listener.messages).hasSize(4);
  }

  @Test
  void bytesAreReportedReadOnlyWhenConsumedForARequestedMessage() {
    byte[] first = frame(0, HELLO);
    deframer.deframe(ReadableBuffers.wrap(concat(first, frame(0, WORLD))));
    assertThat(listener.bytesRead).isZero();

    deframer.request(1);

    assertThat(listener.bytesRead).isEqualTo(first.length);
  }

  @Test
  void aRequestedMessageConsumesItsBytesAsTheyArriveSoALargeOneCannotStall() {
    byte[] body = new byte[100];
    Arrays.fill(body, (byte) 3);
    byte[] stream = frame(0, body);
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(stream, 0, 20));

    // Window for these bytes can be returned before the message is complete.
    assertThat(listener.bytesRead).isEqualTo(20);
    assertThat(listener.messages).isEmpty();
    deframer.deframe(ReadableBuffers.wrap(stream, 20, stream.length - 20));
    assertThat(listener.messages).containsExactly(body);
    assertThat(listener.bytesRead).isEqualTo(stream.length);
  }

  @Test
  void oversizedPrefixFailsBeforeTheBodyArrives() {
    deframer = new MessageDeframer(listener, Codec.Identity.NONE, 100);
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(prefix(0, 1000)));

    assertThat(listener.failures).hasSize(1);
    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).isEqualTo("gRPC message exceeds maximum size 100: 1000");
    assertThat(deframer.isClosed()).isTrue();
    assertThat(listener.closedWithPartialMessage).hasSize(1);

    // The body that follows is released and ignored.
    TrackingReadableBuffer body = new TrackingReadableBuffer(new byte[1000]);
    deframer.deframe(body);
    assertThat(body.isClosed()).isTrue();
    assertThat(listener.failures).hasSize(1);
    assertThat(listener.messages).isEmpty();
  }

  @Test
  void oversizedPrefixDropsWhatIsAlreadyBuffered() {
    deframer = new MessageDeframer(listener, Codec.Identity.NONE, 100);
    TrackingReadableBuffer buffered =
        new TrackingReadableBuffer(concat(prefix(0, 1000), new byte[50]));
    deframer.deframe(buffered);
    assertThat(listener.failures).isEmpty(); // nothing requested yet

    deframer.request(1);

    assertThat(listener.failures).hasSize(1);
    assertThat(buffered.isClosed()).isTrue();
    assertThat(listener.closedWithPartialMessage).containsExactly(true);
  }

  @Test
  void lengthIsUnsigned() {
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(prefix(0, 0xFFFFFFFFL)));

    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).endsWith(": 4294967295");
  }

  @Test
  void messageOfExactlyTheMaximumSizeIsAccepted() {
    deframer = new MessageDeframer(listener, Codec.Identity.NONE, 5);
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(frame(0, HELLO)));

    assertThat(listener.messages).containsExactly(HELLO);
    assertThat(listener.failures).isEmpty();
  }

  @Test
  void decompressionBombFailsWithResourceExhaustedWhileReading() {
    byte[] bomb = gzip(new byte[10 * 1024 * 1024]);
    assertThat(bomb.length).isLessThan(MAX); // passes the prefix check
    List<InputStream> delivered = new ArrayList<>();
    MessageDeframer bombDeframer =
        new MessageDeframer(
            new RecordingListener() {
              @Override
              public void messageRead(InputStream message) {
                delivered.add(message);
              }
            },
            new Codec.Gzip(),
            MAX);
    bombDeframer.request(1);
    bombDeframer.deframe(ReadableBuffers.wrap(frame(1, bomb)));
    assertThat(delivered).hasSize(1);

    long[] readBeforeFailure = {0};
    try (InputStream message = delivered.get(0)) {
      assertThatThrownBy(
              () -> {
                byte[] chunk = new byte[64 * 1024];
                int n;
                while ((n = message.read(chunk)) != -1) {
                  readBeforeFailure[0] += n;
                }
              })
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(e.getStatus().getDescription()).contains(String.valueOf(MAX));
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(readBeforeFailure[0]).isLessThanOrEqualTo(MAX);
  }

  @Test
  void reservedFlagBitsAreAnInternalError() {
    for (int flags : new int[] {0x02, 0x80, 0x03}) {
      RecordingListener flagListener = new RecordingListener();
      MessageDeframer flagDeframer = new MessageDeframer(flagListener, new Codec.Gzip(), MAX);
      flagDeframer.request(1);

      flagDeframer.deframe(ReadableBuffers.wrap(frame(flags, HELLO)));

      assertThat(flagListener.failures).hasSize(1);
      Status status = ((StatusRuntimeException) flagListener.failures.get(0)).getStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(status.getDescription())
          .isEqualTo("gRPC frame header malformed: reserved bits not zero");
      assertThat(flagListener.messages).isEmpty();
      assertThat(flagDeframer.isClosed()).isTrue();
    }
  }

  @Test
  void compressedFlagWithoutADecompressorIsAnInternalError() {
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(frame(1, gzip(HELLO))));

    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription())
        .isEqualTo("Can't decode compressed gRPC message as compression not configured");
    assertThat(listener.messages).isEmpty();
  }

  @Test
  void corruptCompressedBodyIsAnInternalError() {
    deframer.setDecompressor(new Codec.Gzip());
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(frame(1, HELLO)));

    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription()).contains("gzip");
    assertThat(status.getCause()).isInstanceOf(IOException.class);
    assertThat(deframer.isClosed()).isTrue();
  }

  @Test
  void endOfStreamInsideABodyIsAnInternalError() {
    byte[] stream = frame(0, HELLO);
    deframer.request(1);
    deframer.deframe(ReadableBuffers.wrap(stream, 0, stream.length - 1));

    deframer.closeWhenComplete();

    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(status.getDescription()).isEqualTo("Encountered end-of-stream mid-frame");
    assertThat(listener.closedWithPartialMessage).containsExactly(true);
  }

  @Test
  void endOfStreamInsideAPrefixIsAnInternalError() {
    deframer.deframe(ReadableBuffers.wrap(concat(frame(0, HELLO), new byte[] {0, 0})));
    deframer.closeWhenComplete();
    assertThat(listener.failures).isEmpty(); // undelivered data waits for a request

    deframer.request(2);

    assertThat(listener.messages).containsExactly(HELLO);
    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getDescription()).isEqualTo("Encountered end-of-stream mid-frame");
    assertThat(listener.closedWithPartialMessage).containsExactly(true);
  }

  @Test
  void endOfStreamClosesOnlyOnceEveryBufferedMessageWasDelivered() {
    deframer.deframe(ReadableBuffers.wrap(concat(frame(0, HELLO), frame(0, WORLD))));

    deframer.closeWhenComplete();
    assertThat(deframer.isClosed()).isFalse();
    assertThat(listener.closedWithPartialMessage).isEmpty();
    deframer.request(1);
    assertThat(deframer.isClosed()).isFalse();
    deframer.request(1);

    assertThat(listener.messages).containsExactly(HELLO, WORLD);
    assertThat(deframer.isClosed()).isTrue();
    assertThat(listener.closedWithPartialMessage).containsExactly(false);
    assertThat(listener.failures).isEmpty();
  }

  @Test
  void endOfStreamWithNothingBufferedClosesAtOnce() {
    deframer.closeWhenComplete();

    assertThat(deframer.isClosed()).isTrue();
    assertThat(listener.closedWithPartialMessage).containsExactly(false);
  }

  @Test
  void dataAfterEndOfStreamIsRejected() {
    deframer.deframe(ReadableBuffers.wrap(frame(0, HELLO)));
    deframer.closeWhenComplete();
    TrackingReadableBuffer late = new TrackingReadableBuffer(HELLO);

    assertThatThrownBy(() -> deframer.deframe(late))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("end of stream");
    assertThat(late.isClosed()).isTrue();
  }

  @Test
  void closeReleasesBufferedBytesAndReportsThemAsPartial() {
    TrackingReadableBuffer buffered = new TrackingReadableBuffer(frame(0, HELLO));
    deframer.deframe(buffered);

    deframer.close();
    deframer.close();

    assertThat(buffered.isClosed()).isTrue();
    assertThat(listener.closedWithPartialMessage).containsExactly(true);
    assertThat(deframer.hasPendingDeliveries()).isFalse();
    deframer.request(1);
    assertThat(listener.messages).isEmpty();
  }

  @Test
  void consumedInboundBuffersAreReleasedOnceTheirMessagesAreDelivered() {
    TrackingReadableBuffer first = new TrackingReadableBuffer(frame(0, HELLO));
    TrackingReadableBuffer second = new TrackingReadableBuffer(frame(0, WORLD));
    deframer.deframe(first);
    deframer.deframe(second);

    deframer.request(1);

    assertThat(first.isClosed()).isTrue();
    assertThat(second.isClosed()).isFalse();
  }

  @Test
  void deliveredRawMessagesKnowTheirLength() {
    List<InputStream> delivered = new ArrayList<>();
    deframer =
        new MessageDeframer(
            new RecordingListener() {
              @Override
              public void messageRead(InputStream message) {
                delivered.add(message);
              }
            },
            Codec.Identity.NONE,
            MAX);
    deframer.request(1);

    deframer.deframe(ReadableBuffers.wrap(frame(0, WORLD)));

    assertThat(delivered.get(0)).isInstanceOf(KnownLength.class);
    try (InputStream message = delivered.get(0)) {
      assertThat(message.available()).isEqualTo(WORLD.length);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void listenerMayRequestMoreFromInsideMessageRead() {
    RecordingListener requesting =
        new RecordingListener() {
          @Override
          public void messageRead(InputStream message) {
            super.messageRead(message);
            deframer.request(1); // the typical "give me the next one" pattern
          }
        };
    deframer = new MessageDeframer(requesting, Codec.Identity.NONE, MAX);
    deframer.deframe(
        ReadableBuffers.wrap(concat(frame(0, HELLO), frame(0, WORLD), frame(0, HELLO))));

    deframer.request(1);

    assertThat(requesting.messages).containsExactly(HELLO, WORLD, HELLO);
    assertThat(deframer.hasPendingDeliveries()).isFalse();
  }

  @Test
  void listenerMayCloseFromInsideMessageRead() {
    RecordingListener closing =
        new RecordingListener() {
          @Override
          public void messageRead(InputStream message) {
            super.messageRead(message);
            deframer.close();
          }
        };
    deframer = new MessageDeframer(closing, Codec.Identity.NONE, MAX);
    deframer.deframe(ReadableBuffers.wrap(concat(frame(0, HELLO), frame(0, WORLD))));

    deframer.request(2);

    assertThat(closing.messages).containsExactly(HELLO);
    assertThat(closing.closedWithPartialMessage).containsExactly(true);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> deframer.request(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numMessages");
    assertThatThrownBy(() -> deframer.setMaxInboundMessageSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessageSize");
    assertThatThrownBy(() -> new MessageDeframer(listener, Codec.Identity.NONE, -5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MessageDeframer(null, Codec.Identity.NONE, MAX))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("listener");
    assertThatThrownBy(() -> deframer.setDecompressor(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("decompressor");
    assertThatThrownBy(() -> deframer.deframe(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("data");
  }

  @Test
  void lowerInboundLimitAppliesToLaterMessages() {
    deframer.request(2);
    deframer.deframe(ReadableBuffers.wrap(frame(0, WORLD)));

    deframer.setMaxInboundMessageSize(5);
    deframer.deframe(ReadableBuffers.wrap(frame(0, WORLD)));

    assertThat(listener.messages).containsExactly(WORLD);
    Status status = ((StatusRuntimeException) listener.failures.get(0)).getStatus();
    assertThat(status.getDescription()).isEqualTo("gRPC message exceeds maximum size 5: 6");
  }

  /** Reads each message fully when delivered and records everything else. */
  static class RecordingListener implements MessageDeframer.Listener {
    final List<byte[]> messages = new ArrayList<>();
    final List<Throwable> failures = new ArrayList<>();
    final List<Boolean> closedWithPartialMessage = new ArrayList<>();
    long bytesRead;

    @Override
    public void messageRead(InputStream message) {
      try (InputStream in = message) {
        messages.add(in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void deframerClosed(boolean hasPartialMessage) {
      closedWithPartialMessage.add(hasPartialMessage);
    }

    @Override
    public void deframeFailed(Throwable cause) {
      failures.add(cause);
    }

    @Override
    public void bytesRead(int numBytes) {
      assertThat(numBytes).isPositive();
      bytesRead += numBytes;
    }
  }
}
