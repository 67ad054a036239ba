package dev.tern.internal.wire;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** A {@link MessageFramer.Sink} that records every delivery. */
final class RecordingSink implements MessageFramer.Sink {

  /** One {@link MessageFramer.Sink#deliverFrame} call; {@code bytes} is null for a null frame. */
  static final class Delivery {
    final byte[] bytes;
    final boolean endOfStream;
    final boolean flush;
    final int numMessages;

    Delivery(byte[] bytes, boolean endOfStream, boolean flush, int numMessages) {
      this.bytes = bytes;
      this.endOfStream = endOfStream;
      this.flush = flush;
      this.numMessages = numMessages;
    }
  }

  final List<Delivery> deliveries = new ArrayList<>();

  @Override
  public void deliverFrame(
      WritableBuffer frame, boolean endOfStream, boolean flush, int numMessages) {
    byte[] bytes = null;
    if (frame != null) {
      bytes = ((ByteArrayWritableBuffer) frame).toByteArray();
      frame.release();
    }
    deliveries.add(new Delivery(bytes, endOfStream, flush, numMessages));
  }

  /** All delivered bytes, in order. */
  byte[] allBytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Delivery delivery : deliveries) {
      if (delivery.bytes != null) {
        out.writeBytes(delivery.bytes);
      }
    }
    return out.toByteArray();
  }

  int totalMessages() {
    int total = 0;
    for (Delivery delivery : deliveries) {
      total += delivery.numMessages;
    }
    return total;
  }
}
