package dev.tern.spi;

import dev.tern.Attributes;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;

/** The server side of one call on a transport. Not thread-safe (see {@link Stream}). */
public interface ServerStream extends Stream {
  /** Sets the listener; called once by the runtime from {@code streamCreated}. */
  void setListener(ServerStreamListener listener);

  /** The decompressor for inbound messages, chosen from the request's {@code grpc-encoding}. */
  void setDecompressor(Decompressor decompressor);

  /** Largest inbound message; larger ones fail the call with RESOURCE_EXHAUSTED. */
  void setMaxInboundMessageSize(int bytes);

  /** Sends the response headers (at most once, before any message). */
  void writeHeaders(Metadata headers, boolean flush);

  /**
   * Ends the call with {@code status} and {@code trailers} (Trailers-Only if no headers were sent).
   * The listener's {@code closed(OK)} follows once it is sent, or a failure status if the stream
   * broke first.
   */
  void close(Status status, Metadata trailers);

  /** Aborts the stream (RST_STREAM on HTTP/2); the listener's {@code closed} follows. */
  void cancel(Status status);

  /** The transport's attributes, after server transport filters. */
  Attributes getAttributes();

  /** The {@code :authority} of the request, or null. */
  String getAuthority();

  /**
   * The application is done with a call whose stream broke (the client reset it, its deadline
   * passed, the connection went): its {@code onCancel} returned, and every callback before it. A
   * transport that keeps a reset call counted against a concurrency bound until its handler is done
   * (as its defence against Rapid Reset) releases it here. Called at most once, on any thread; the
   * default does nothing.
   */
  default void cancelledCallFinished() {}

  /**
   * How the runtime hands this call's callbacks to the server's executor (see {@link HandOff}):
   * called once, on the transport's thread, before the listener is set. The default hands each over
   * at once.
   */
  default HandOff handOff() {
    return HandOff.DIRECT;
  }
}
