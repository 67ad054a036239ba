package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * A stream that is always ready and says so from inside {@link #start}, before whoever started it
 * has done anything else: as a transport's stream may, from its own thread, at any moment after
 * start. For the layers that stand between a call and its stream and must not lose that signal.
 * Messages written to it are closed and dropped. Not thread-safe (a stream is used by one thread at
 * a time).
 */
public final class ReadyOnStartClientStream implements ClientStream {
  @Override
  public void start(ClientStreamListener listener) {
    listener.onReady();
  }

  @Override
  public boolean isReady() {
    return true;
  }

  @Override
  public void writeMessage(InputStream message) {
    try {
      message.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {}

  @Override
  public void setMaxOutboundMessageSize(int bytes) {}

  @Override
  public void setDecompressorRegistry(DecompressorRegistry registry) {}

  @Override
  public void halfClose() {}

  @Override
  public void cancel(Status reason) {}

  @Override
  public Attributes getAttributes() {
    return Attributes.EMPTY;
  }

  @Override
  public void request(int numMessages) {}

  @Override
  public void flush() {}

  @Override
  public void setMessageCompression(boolean enable) {}

  @Override
  public void setCompressor(Compressor compressor) {}
}
