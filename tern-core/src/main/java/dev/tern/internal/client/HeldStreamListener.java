package dev.tern.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ClientStreamListener;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The listener a {@link DelayedClientStream} gives its real stream: it holds the real stream's
 * callbacks while the calls recorded before it existed are still being replayed onto it, and
 * delivers them, in the order given, once {@link #release} is called (the replay has caught up);
 * from then on it passes each callback straight through.
 *
 * <p>Why: until the replay has caught up, the delayed stream's {@code isReady()} says false, since
 * a message written then is queued behind the replay, where no flow control holds it back. A real
 * stream's {@code onReady} during the replay (it may signal readiness as soon as it starts, and
 * only once) must therefore reach the listener after {@code isReady()} can say true. Holding every
 * callback, not only that one, keeps them in order and one at a time.
 *
 * <p>Thread-safety: the real stream calls the callbacks one at a time; {@link #release} runs on
 * another thread. Held callbacks are delivered by the releasing thread, which also delivers those
 * that arrive while it does, so the delegate never hears two callbacks at once.
 */
final class HeldStreamListener implements ClientStreamListener {
  private final ClientStreamListener delegate;

  /** Once true, every callback goes straight to the delegate. */
  private volatile boolean passThrough;

  /** The callbacks held so far, in order; null while none is. */
  @GuardedBy("this")
  private List<Runnable> held;

  HeldStreamListener(ClientStreamListener delegate) {
    this.delegate = delegate;
  }

  /**
   * Delivers the held callbacks, and any arriving meanwhile, on this thread; then passes through.
   * Called once.
   */
  void release() {
    while (true) {
      List<Runnable> toDeliver;
      synchronized (this) {
        if (held == null) {
          passThrough = true;
          return;
        }
        toDeliver = held;
        held = null;
      }
      for (Runnable callback : toDeliver) {
        callback.run();
      }
    }
  }

  /** Whether {@code callback} was held for {@link #release}; if not, the caller delivers it. */
  private synchronized boolean hold(Runnable callback) {
    if (passThrough) {
      return false;
    }
    if (held == null) {
      held = new ArrayList<>(2);
    }
    held.add(callback);
    return true;
  }

  @Override
  public void headersRead(Metadata headers) {
    if (passThrough || !hold(() -> delegate.headersRead(headers))) {
      delegate.headersRead(headers);
    }
  }

  @Override
  public void messageRead(InputStream message) {
    if (passThrough || !hold(() -> delegate.messageRead(message))) {
      delegate.messageRead(message);
    }
  }

  @Override
  public void closed(Status status, RpcProgress progress, Metadata trailers) {
    if (passThrough || !hold(() -> delegate.closed(status, progress, trailers))) {
      delegate.closed(status, progress, trailers);
    }
  }

  @Override
  public void onReady() {
    if (passThrough || !hold(delegate::onReady)) {
      delegate.onReady();
    }
  }
}
