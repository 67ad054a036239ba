package dev.tern.internal.client;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.HandOff;
import java.io.InputStream;

/**
 * A client stream that passes every operation to another; a wrapper overrides what it watches. The
 * optional operations ({@code requestsCrossThreads}, {@code setWireSizeListener}) keep their
 * defaults unless a wrapper forwards them.
 *
 * <p>Thread-safety: that of the stream it wraps.
 */
abstract class ForwardingClientStream implements ClientStream {
  final ClientStream delegate;

  ForwardingClientStream(ClientStream delegate) {
    this.delegate = delegate;
  }

  @Override
  public void start(ClientStreamListener listener) {
    delegate.start(listener);
  }

  @Override
  public void writeMessage(InputStream message) {
    delegate.writeMessage(message);
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    delegate.setMaxInboundMessageSize(bytes);
  }

  @Override
  public void setMaxOutboundMessageSize(int bytes) {
    delegate.setMaxOutboundMessageSize(bytes);
  }

  @Override
  public void setDecompressorRegistry(DecompressorRegistry registry) {
    delegate.setDecompressorRegistry(registry);
  }

  @Override
  public void halfClose() {
    delegate.halfClose();
  }

  @Override
  public void cancel(Status reason) {
    delegate.cancel(reason);
  }

  @Override
  public Attributes getAttributes() {
    return delegate.getAttributes();
  }

  @Override
  public HandOff handOff() {
    return delegate.handOff();
  }

  @Override
  public void request(int numMessages) {
    delegate.request(numMessages);
  }

  @Override
  public void flush() {
    delegate.flush();
  }

  @Override
  public boolean isReady() {
    return delegate.isReady();
  }

  @Override
  public void setMessageCompression(boolean enable) {
    delegate.setMessageCompression(enable);
  }

  @Override
  public void setCompressor(Compressor compressor) {
    delegate.setCompressor(compressor);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + delegate + "}";
  }
}
