package dev.tern.spi;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;

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
   * The descriptor of the method a call to {@code fullMethodName} would run, or null if the server
   * has none. Protocols that are not gRPC ask it before starting a call: for the method's schema
   * (to map JSON to its messages), its type, and whether it is safe (HTTP GET). The transport's
   * thread; must not block.
   *
   * @param authority the request's authority, for the fallback registry; may be null
   */
  default MethodDescriptor<?, ?> lookupMethod(String fullMethodName, String authority) {
    return null;
  }

  /**
   * The connection is ready (handshake done). Returns the attributes its calls will see, after
   * {@link dev.tern.ServerTransportFilter}s. Called once, before any {@code streamCreated}.
   */
  Attributes transportReady(Attributes transportAttrs);

  /** The connection is gone. Called once, last. */
  void transportTerminated();
}
