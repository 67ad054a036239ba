package dev.tern.grpcjava.internal.server;

import dev.tern.grpcjava.internal.convert.TransportAttributes;

/**
 * A grpc-java {@code ServerTransportFilter} as Tern's: it hears each connection become ready with
 * grpc-java's transport attributes (remote and local address, TLS session; those an earlier
 * grpc-java filter returned), and what it returns is what the connection's calls see through {@code
 * ServerCall.getAttributes()}, its own keys included; it hears the connection end with those
 * attributes. Thread-safe as the wrapped filter is (Tern calls it from transport threads).
 */
final class GrpcJavaTransportFilter extends dev.tern.ServerTransportFilter {
  private final io.grpc.ServerTransportFilter filter;

  GrpcJavaTransportFilter(io.grpc.ServerTransportFilter filter) {
    this.filter = filter;
  }

  @Override
  public dev.tern.Attributes transportReady(dev.tern.Attributes transportAttrs) {
    io.grpc.Attributes result = filter.transportReady(TransportAttributes.toGrpc(transportAttrs));
    if (result == null) {
      // grpc-java's server refuses a null here the same way.
      throw new NullPointerException(
          "grpc-java ServerTransportFilter " + filter + " returned null from transportReady");
    }
    return transportAttrs.toBuilder().set(TransportAttributes.FILTERED, result).build();
  }

  @Override
  public void transportTerminated(dev.tern.Attributes transportAttrs) {
    filter.transportTerminated(TransportAttributes.toGrpc(transportAttrs));
  }

  @Override
  public String toString() {
    return "grpc-java " + filter;
  }
}
