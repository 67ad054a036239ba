package dev.tern.internal;

import dev.tern.Attributes;
import dev.tern.ClientStreamTracer;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import java.io.InputStream;

/**
 * A stream that tells its {@link ClientStreamTracer} when it closes; used only when a balancer's
 * pick installs a tracer, so untraced calls pay nothing.
 *
 * <p>Thread-safety: that of the stream it wraps; the tracer is called once, from the listener's
 * {@code closed}.
 */
final class TracedClientStream implements ClientStream {
  private final ClientStream delegate;
  private final ClientStreamTracer tracer;

  TracedClientStream(ClientStream delegate, ClientStreamTracer tracer) {
    this.delegate = delegate;
    this.tracer = tracer;
  }

  @Override
  public void start(ClientStreamListener listener) {
    delegate.start(
        new ClientStreamListener() {
          @Override
          public void headersRead(Metadata headers) {
            listener.headersRead(headers);
          }

          @Override
          public void closed(Status status, RpcProgress progress, Metadata trailers) {
            try {
              tracer.streamClosed(status);
            } finally {
              listener.closed(status, progress, trailers);
            }
          }

          @Override
          public void messageRead(InputStream message) {
            listener.messageRead(message);
          }

          @Override
          public void onReady() {
            listener.onReady();
          }
        });
  }

  /**
   * The stream will never be started (its call ended while it was being made): the tracer hears it
   * closed, so a balancer counting calls in flight does not count it forever.
   */
  void abandon(Status status) {
    tracer.streamClosed(status);
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
  public void request(int numMessages) {
    delegate.request(numMessages);
  }

  @Override
  public void writeMessage(InputStream message) {
    delegate.writeMessage(message);
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
    return "TracedClientStream{" + delegate + "}";
  }
}
