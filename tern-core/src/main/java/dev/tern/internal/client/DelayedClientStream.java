package dev.tern.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.WireSizeListener;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A client stream that exists before the real one: it records what the call does (setters, start,
 * requests, messages, flushes, half-close) and replays it, in order, on the real stream once {@link
 * #setStream} provides it; from then on it passes every call straight through. Used while a call
 * waits for a transport, for its call credentials, or for a transparent retry.
 *
 * <p>{@link #cancel} while nothing real exists ends the stream at once: the listener's {@code
 * closed} is called (on the cancelling thread) and queued messages are released. {@link #fail} does
 * the same for the runtime's own reasons (channel shut down, connection failed, credentials
 * refused).
 *
 * <p>Thread-safety: every method may be called from any thread; the stream's own monitor guards the
 * buffered state. A single thread at a time (the "drainer") replays onto the real stream, so the
 * real stream sees its calls one at a time and in order; calls arriving meanwhile are queued behind
 * the replay. The real stream's callbacks during the replay are held and delivered by the drainer
 * once it has caught up ({@link HeldStreamListener}). No lock is held while the real stream or the
 * listener is called.
 */
public class DelayedClientStream implements ClientStream {
  private static final Logger logger = Logger.getLogger(DelayedClientStream.class.getName());

  /** Queue markers; write operations are queued as the {@link InputStream} itself. */
  private static final Object FLUSH = new Object();

  private static final Object COMPRESSION_ON = new Object();
  private static final Object COMPRESSION_OFF = new Object();

  /** Outcomes of {@link #endWithoutRealStream}. */
  private static final int ENDED = 0;

  private static final int PASS_THROUGH = 1;
  private static final int NO_EFFECT = 2;

  // Written under this stream's monitor; these two are also read without it.
  private volatile ClientStream real;
  private volatile boolean passThrough;

  @GuardedBy("this")
  private ClientStreamListener listener;

  @GuardedBy("this")
  private boolean realStarted;

  @GuardedBy("this")
  private boolean draining;

  @GuardedBy("this")
  private Status terminalStatus;

  @GuardedBy("this")
  private Status pendingCancel;

  @GuardedBy("this")
  private int pendingRequests;

  @GuardedBy("this")
  private boolean pendingHalfClose;

  @GuardedBy("this")
  private List<Object> pendingOps;

  @GuardedBy("this")
  private int maxInboundMessageSize = -1;

  @GuardedBy("this")
  private int maxOutboundMessageSize = -1;

  @GuardedBy("this")
  private DecompressorRegistry decompressorRegistry;

  @GuardedBy("this")
  private Compressor compressor;

  @GuardedBy("this")
  private WireSizeListener wireSizeListener;

  public DelayedClientStream() {}

  /** Returns a stream that is already failed: starting it reports {@code closed(status)}. */
  public static DelayedClientStream failed(Status status) {
    DelayedClientStream stream = new DelayedClientStream();
    stream.fail(status);
    return stream;
  }

  /**
   * Hands over the real stream (not yet started) and replays everything recorded so far onto it.
   *
   * @return false if this stream already ended (cancelled or failed); {@code stream} is then left
   *     unstarted and unused, so it holds nothing on its transport
   * @throws IllegalStateException if a real stream was already set
   */
  public final boolean setStream(ClientStream stream) {
    Objects.requireNonNull(stream, "stream");
    synchronized (this) {
      if (real != null) {
        throw new IllegalStateException("real stream already set");
      }
      if (terminalStatus != null) {
        return false;
      }
      real = stream;
    }
    drain();
    return true;
  }

  /**
   * Ends the stream with {@code status} if it has no real stream yet: the listener hears {@code
   * closed(status, PROCESSED)} now, or at {@link #start} if it has not started.
   *
   * @return whether it took effect (false if a real stream was set or it had already ended)
   */
  public final boolean fail(Status status) {
    Objects.requireNonNull(status, "status");
    return endWithoutRealStream(status, false) == ENDED;
  }

  /** Whether the stream ended without a real stream (so none needs to be made for it). */
  public final synchronized boolean isEnded() {
    return terminalStatus != null;
  }

  /** Called once, outside any lock, when {@link #cancel} ends a stream that had no real stream. */
  protected void cancelledWithoutRealStream() {}

  @Override
  public final synchronized void setMaxInboundMessageSize(int bytes) {
    checkNotStarted();
    maxInboundMessageSize = bytes;
  }

  @Override
  public final synchronized void setMaxOutboundMessageSize(int bytes) {
    checkNotStarted();
    maxOutboundMessageSize = bytes;
  }

  @Override
  public final synchronized void setDecompressorRegistry(DecompressorRegistry registry) {
    checkNotStarted();
    decompressorRegistry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public final synchronized void setCompressor(Compressor compressor) {
    checkNotStarted();
    this.compressor = Objects.requireNonNull(compressor, "compressor");
  }

  @Override
  public final synchronized void setWireSizeListener(WireSizeListener listener) {
    checkNotStarted();
    wireSizeListener = Objects.requireNonNull(listener, "listener");
  }

  @GuardedBy("this")
  private void checkNotStarted() {
    if (listener != null) {
      throw new IllegalStateException("stream setters must be called before start");
    }
  }

  @Override
  public final void start(ClientStreamListener listener) {
    Objects.requireNonNull(listener, "listener");
    Status endedWith;
    synchronized (this) {
      if (this.listener != null) {
        throw new IllegalStateException("stream already started");
      }
      this.listener = listener;
      endedWith = terminalStatus;
    }
    if (endedWith != null) {
      listener.closed(endedWith, RpcProgress.PROCESSED, new Metadata());
      return;
    }
    drain();
  }

  @Override
  public final void request(int numMessages) {
    if (!passThrough) {
      synchronized (this) {
        if (!passThrough) {
          if (terminalStatus == null) {
            pendingRequests =
                (int) Math.min(Integer.MAX_VALUE, (long) pendingRequests + numMessages);
          }
          return;
        }
      }
    }
    real.request(numMessages);
  }

  @Override
  public final void writeMessage(InputStream message) {
    if (!passThrough) {
      boolean drop = false;
      synchronized (this) {
        if (!passThrough) {
          if (terminalStatus == null) {
            enqueueLocked(message);
            return;
          }
          drop = true;
        }
      }
      if (drop) {
        closeQuietly(message);
        return;
      }
    }
    real.writeMessage(message);
  }

  @Override
  public final void flush() {
    if (!passThrough) {
      synchronized (this) {
        if (!passThrough) {
          if (terminalStatus == null) {
            enqueueLocked(FLUSH);
          }
          return;
        }
      }
    }
    real.flush();
  }

  @Override
  public final void setMessageCompression(boolean enable) {
    if (!passThrough) {
      synchronized (this) {
        if (!passThrough) {
          if (terminalStatus == null) {
            enqueueLocked(enable ? COMPRESSION_ON : COMPRESSION_OFF);
          }
          return;
        }
      }
    }
    real.setMessageCompression(enable);
  }

  @Override
  public final void halfClose() {
    if (!passThrough) {
      synchronized (this) {
        if (!passThrough) {
          if (terminalStatus == null) {
            pendingHalfClose = true;
          }
          return;
        }
      }
    }
    real.halfClose();
  }

  /**
   * False until the replay onto the real stream has caught up; then the real stream's answer. A
   * message written before then is queued behind the replay, where no flow control holds it back,
   * so answering the real stream's readiness during the replay let a caller that sends while ready
   * queue without bound. The real stream's {@code onReady} during the replay (it may signal as soon
   * as it starts, and only once) is held until the replay has caught up ({@link
   * HeldStreamListener}), so a caller waiting for readiness hears it when this says true.
   */
  @Override
  public final boolean isReady() {
    return passThrough && real.isReady();
  }

  @Override
  public final Attributes getAttributes() {
    return passThrough ? real.getAttributes() : Attributes.EMPTY;
  }

  @Override
  public final void cancel(Status reason) {
    Objects.requireNonNull(reason, "reason");
    if (!passThrough) {
      int outcome = endWithoutRealStream(reason, true);
      if (outcome == ENDED) {
        cancelledWithoutRealStream();
      }
      if (outcome != PASS_THROUGH) {
        return;
      }
    }
    real.cancel(reason);
  }

  /**
   * Ends the stream with {@code status} if no real stream was set: releases queued messages and
   * tells the listener (if started). With {@code cancel}, a real stream that is still being caught
   * up gets the cancellation queued behind the replay instead.
   *
   * @return {@link #ENDED}, {@link #PASS_THROUGH} (the caller must cancel the real stream itself),
   *     or {@link #NO_EFFECT}
   */
  private int endWithoutRealStream(Status status, boolean cancel) {
    ClientStreamListener toNotify;
    List<Object> toRelease;
    synchronized (this) {
      if (passThrough) {
        return cancel ? PASS_THROUGH : NO_EFFECT;
      }
      if (real != null) {
        if (cancel && pendingCancel == null) {
          // The drainer cancels the real stream once it is started.
          pendingCancel = status;
        }
        return NO_EFFECT;
      }
      if (terminalStatus != null) {
        return NO_EFFECT;
      }
      terminalStatus = status;
      toNotify = listener;
      toRelease = pendingOps;
      pendingOps = null;
    }
    release(toRelease);
    if (toNotify != null) {
      toNotify.closed(status, RpcProgress.PROCESSED, new Metadata());
    }
    return ENDED;
  }

  @GuardedBy("this")
  private void enqueueLocked(Object op) {
    if (pendingOps == null) {
      pendingOps = new ArrayList<>(4);
    }
    pendingOps.add(op);
  }

  /**
   * Replays onto the real stream until nothing is left, then switches to pass-through and delivers
   * the real stream's callbacks held meanwhile. Only one thread drains at a time; others just
   * queue.
   */
  private void drain() {
    synchronized (this) {
      if (draining || passThrough || real == null || listener == null) {
        return;
      }
      draining = true;
    }
    ClientStream stream = real;
    HeldStreamListener callbacks = null;
    boolean done = false;
    try {
      while (true) {
        boolean start;
        int requests;
        List<Object> ops;
        boolean halfClose;
        Status cancel;
        StartSettings settings = null;
        synchronized (this) {
          start = !realStarted;
          realStarted = true;
          if (start) {
            callbacks = new HeldStreamListener(listener);
            settings = startSettingsLocked(callbacks);
          }
          requests = pendingRequests;
          pendingRequests = 0;
          ops = pendingOps;
          pendingOps = null;
          halfClose = pendingHalfClose;
          pendingHalfClose = false;
          cancel = pendingCancel;
          pendingCancel = null;
          if (!start && requests == 0 && ops == null && !halfClose && cancel == null) {
            passThrough = true;
            draining = false;
            done = true;
            break;
          }
        }
        if (settings != null) {
          settings.applyAndStart(stream);
        }
        if (requests > 0) {
          stream.request(requests);
        }
        if (ops != null) {
          replay(stream, ops);
        }
        if (halfClose) {
          stream.halfClose();
        }
        if (cancel != null) {
          stream.cancel(cancel);
        }
      }
    } finally {
      if (!done) {
        // The real stream threw: stop buffering so later calls reach it (and fail there).
        synchronized (this) {
          passThrough = true;
          draining = false;
        }
      }
      // The callbacks the real stream gave during the replay, now that isReady() tells the truth.
      if (callbacks != null) {
        callbacks.release();
      }
    }
  }

  /**
   * What {@code start()} and the setters before it asked for, read once under the lock, with the
   * listener the real stream reports to.
   */
  @GuardedBy("this")
  private StartSettings startSettingsLocked(ClientStreamListener realListener) {
    return new StartSettings(
        realListener,
        maxInboundMessageSize,
        maxOutboundMessageSize,
        decompressorRegistry,
        compressor,
        wireSizeListener);
  }

  /**
   * The setters' values and the listener, handed to a real stream outside any lock (also used by
   * the retry layer for each attempt). A negative size or a null component was not set.
   */
  public record StartSettings(
      ClientStreamListener listener,
      int maxInboundMessageSize,
      int maxOutboundMessageSize,
      DecompressorRegistry decompressorRegistry,
      Compressor compressor,
      WireSizeListener wireSizeListener) {

    public void applyAndStart(ClientStream stream) {
      if (wireSizeListener != null) {
        stream.setWireSizeListener(wireSizeListener);
      }
      if (maxInboundMessageSize >= 0) {
        stream.setMaxInboundMessageSize(maxInboundMessageSize);
      }
      if (maxOutboundMessageSize >= 0) {
        stream.setMaxOutboundMessageSize(maxOutboundMessageSize);
      }
      if (decompressorRegistry != null) {
        stream.setDecompressorRegistry(decompressorRegistry);
      }
      if (compressor != null) {
        stream.setCompressor(compressor);
      }
      stream.start(listener);
    }
  }

  private static void replay(ClientStream stream, List<Object> ops) {
    for (Object op : ops) {
      if (op == FLUSH) {
        stream.flush();
      } else if (op == COMPRESSION_ON) {
        stream.setMessageCompression(true);
      } else if (op == COMPRESSION_OFF) {
        stream.setMessageCompression(false);
      } else {
        stream.writeMessage((InputStream) op);
      }
    }
  }

  private static void release(List<Object> ops) {
    if (ops == null) {
      return;
    }
    for (Object op : ops) {
      if (op instanceof InputStream) {
        closeQuietly((InputStream) op);
      }
    }
  }

  private static void closeQuietly(InputStream message) {
    try {
      message.close();
    } catch (IOException | RuntimeException e) {
      logger.log(Level.FINE, "Failed to release a message that will not be sent", e);
    }
  }

  @Override
  public String toString() {
    return "DelayedClientStream{real=" + real + ", ended=" + isEnded() + "}";
  }
}
