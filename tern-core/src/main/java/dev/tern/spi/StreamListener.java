package dev.tern.spi;

import java.io.InputStream;

/** Events of a stream, called by the transport from one thread at a time. */
public interface StreamListener {
  /**
   * One inbound message, already unframed and decompressed. The listener owns {@code message} and
   * must close it. Only called for messages that were {@link Stream#request requested}.
   */
  void messageRead(InputStream message);

  /** {@link Stream#isReady()} may have become true. */
  void onReady();
}
