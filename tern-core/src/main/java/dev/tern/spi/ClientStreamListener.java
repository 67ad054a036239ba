package dev.tern.spi;

import dev.tern.Metadata;
import dev.tern.Status;

/** Events of a client stream, from the transport (one thread at a time). */
public interface ClientStreamListener extends StreamListener {
  /** The response headers arrived (not called for a Trailers-Only response). */
  void headersRead(Metadata headers);

  /**
   * The stream ended. Called exactly once, last. {@code trailers} is never null.
   *
   * @param progress how far the call got, so the runtime knows whether a retry is safe
   */
  void closed(Status status, RpcProgress progress, Metadata trailers);

  /** How far a failed call got. */
  enum RpcProgress {
    /** The server may have seen and processed the call. */
    PROCESSED,
    /** The server refused the stream before processing it (safe to retry transparently). */
    REFUSED,
    /** The call never left the client (e.g. the transport was already shut down). */
    DROPPED
  }
}
