package dev.tern.spi;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import java.util.concurrent.Executor;

/** A connection that carries client streams. Thread-safe. */
public interface ClientTransport {
  /**
   * Creates a stream for one call; it sends nothing until {@link ClientStream#start}. Never throws:
   * on a transport that is shut down the stream fails with UNAVAILABLE when started.
   *
   * @param headers request metadata; the stream owns it
   */
  ClientStream newStream(MethodDescriptor<?, ?> method, Metadata headers, CallOptions callOptions);

  /**
   * Measures a round trip (an HTTP/2 PING). The callback runs once on {@code executor}: {@code
   * onSuccess} with the round-trip time, or {@code onFailure} (UNAVAILABLE after shutdown or once
   * the connection is gone, never a raw I/O exception).
   */
  void ping(PingCallback callback, Executor executor);

  /** Attributes of the connection (addresses, TLS session, security level) once it is ready. */
  Attributes getAttributes();

  /** The outcome of a {@link #ping}. */
  interface PingCallback {
    /** The peer answered after {@code roundTripTimeNanos}. */
    void onSuccess(long roundTripTimeNanos);

    /** The ping failed. */
    void onFailure(Status status);
  }
}
