package dev.tern.internal.client;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.WireSizeListener;
import java.io.InputStream;

/**
 * A stream sent to a backend under adaptive throttling: it passes everything through and, when the
 * stream closes, tells the backend's {@link BackendThrottle} how it ended. Made only when the
 * channel throttles, so other channels' calls pay nothing.
 *
 * <p>Thread-safety: that of the stream it wraps; {@link #cancel} may come from any thread, and the
 * listener's events from the transport's, one at a time.
 */
public final class ThrottledClientStream extends ForwardingClientStream
    implements ClientStreamListener {
  private final BackendThrottle throttle;
  private ClientStreamListener listener; // set by start, before any event
  private volatile boolean cancelledByClient;

  public ThrottledClientStream(ClientStream delegate, BackendThrottle throttle) {
    super(delegate);
    this.throttle = throttle;
  }

  /** The stream it wraps. */
  public ClientStream delegate() {
    return delegate;
  }

  @Override
  public void start(ClientStreamListener listener) {
    this.listener = listener;
    delegate.start(this);
  }

  @Override
  public void cancel(Status reason) {
    cancelledByClient = true;
    delegate.cancel(reason);
  }

  // --- the listener: counts the outcome, then passes it on ---

  @Override
  public void headersRead(Metadata headers) {
    listener.headersRead(headers);
  }

  @Override
  public void messageRead(InputStream message) {
    listener.messageRead(message);
  }

  @Override
  public void onReady() {
    listener.onReady();
  }

  @Override
  public void closed(Status status, RpcProgress progress, Metadata trailers) {
    throttle.onClosed(status, progress, trailers, cancelledByClient);
    listener.closed(status, progress, trailers);
  }

  // --- the optional operations: passed through too ---

  @Override
  public boolean requestsCrossThreads() {
    return delegate.requestsCrossThreads();
  }

  @Override
  public void setWireSizeListener(WireSizeListener wireSizes) {
    delegate.setWireSizeListener(wireSizes);
  }
}
