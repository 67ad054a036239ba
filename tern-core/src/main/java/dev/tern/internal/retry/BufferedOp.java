package dev.tern.internal.retry;

import dev.tern.KnownLength;
import dev.tern.spi.ClientStream;
import java.io.ByteArrayInputStream;

/**
 * One thing a call did to its stream, kept by a {@link RetryingClientStream} until the call
 * commits, so that each new attempt can be given it again, in order. Immutable; thread-safe.
 */
sealed interface BufferedOp {
  /** Does it again, to one attempt's stream. */
  void applyTo(ClientStream stream);

  /** The bytes it holds of the channel's retry buffer. */
  default int size() {
    return 0;
  }

  /** {@code request(count)}. */
  record Request(int count) implements BufferedOp {
    @Override
    public void applyTo(ClientStream stream) {
      stream.request(count);
    }
  }

  /** {@code writeMessage}, the message read into bytes (each attempt reads its own copy). */
  record Message(byte[] bytes) implements BufferedOp {
    @Override
    public void applyTo(ClientStream stream) {
      stream.writeMessage(new BufferedMessage(bytes));
    }

    @Override
    public int size() {
      return bytes.length;
    }
  }

  /** The operations without arguments. */
  enum Signal implements BufferedOp {
    FLUSH {
      @Override
      public void applyTo(ClientStream stream) {
        stream.flush();
      }
    },
    HALF_CLOSE {
      @Override
      public void applyTo(ClientStream stream) {
        stream.halfClose();
      }
    },
    COMPRESSION_ON {
      @Override
      public void applyTo(ClientStream stream) {
        stream.setMessageCompression(true);
      }
    },
    COMPRESSION_OFF {
      @Override
      public void applyTo(ClientStream stream) {
        stream.setMessageCompression(false);
      }
    }
  }

  /** A buffered request, replayed to one attempt; its length is known to the framer. */
  final class BufferedMessage extends ByteArrayInputStream implements KnownLength {
    BufferedMessage(byte[] bytes) {
      super(bytes);
    }
  }
}
