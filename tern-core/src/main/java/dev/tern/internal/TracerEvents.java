package dev.tern.internal;

import dev.tern.KnownLength;
import dev.tern.internal.client.TracedClientStream;
import dev.tern.internal.server.TracedServerStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One stream's tracers (client or server) and the one way events reach them: each tracer hears each
 * event, and a tracer that throws is ignored, with one WARNING per stream, so the call never sees a
 * tracer's failure. {@link TracedClientStream} and {@link TracedServerStream} share it.
 *
 * <p>Thread-safe: events may come from the writing thread and the listener's thread at once; the
 * tracers are immutable and the only state is the "already logged" flag (volatile; two failures
 * racing may both be logged, which is harmless).
 *
 * @param <T> the tracer type
 */
public final class TracerEvents<T> {
  private static final Logger logger = Logger.getLogger(TracerEvents.class.getName());

  private final T[] tracers;
  private volatile boolean failureLogged;

  public TracerEvents(T[] tracers) {
    this.tracers = tracers;
  }

  /** Tells every tracer {@code event}. */
  public void report(Consumer<? super T> event) {
    for (T tracer : tracers) {
      try {
        event.accept(tracer);
      } catch (RuntimeException e) {
        if (!failureLogged) {
          failureLogged = true;
          logger.log(Level.WARNING, "Stream tracer " + tracer + " threw; ignored", e);
        }
      }
    }
  }

  /** The uncompressed size of {@code message} when it knows it ({@link KnownLength}), else -1. */
  public static long knownLength(InputStream message) {
    if (!(message instanceof KnownLength)) {
      return -1;
    }
    try {
      return message.available();
    } catch (IOException e) {
      return -1;
    }
  }
}
