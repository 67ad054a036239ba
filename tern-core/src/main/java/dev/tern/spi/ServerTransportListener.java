package dev.tern.spi;

import dev.tern.Attributes;
import dev.tern.Metadata;

/**
 * The runtime's side of one server connection. The transport calls it from its own thread, one call
 * at a time per connection.
 */
public interface ServerTransportListener {
  /**
   * A call arrived. The runtime sets the stream's listener before returning.
   *
   * @param fullMethodName {@code pkg.Service/Method} (the {@code :path} without its slash)
   * @param headers request metadata, including reserved headers like {@code grpc-timeout}
   */
  void streamCreated(ServerStream stream, String fullMethodName, Metadata headers);

  /**
   * The connection is ready (handshake done). Returns the attributes its calls will see, after
   * {@link dev.tern.ServerTransportFilter}s. Called once, before any {@code streamCreated}.
   */
  Attributes transportReady(Attributes transportAttrs);

  /** The connection is gone. Called once, last. */
  void transportTerminated();
}
