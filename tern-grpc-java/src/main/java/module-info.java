/**
 * grpc-java's {@code io.grpc} API on Tern (issue 38). Exports nothing: applications keep naming
 * {@code io.grpc} only, and find Tern through grpc-java's provider SPI, which this module provides
 * at a priority above grpc-java's own transports. The adapters ({@code
 * dev.tern.grpcjava.internal.*}) use Tern's public API only.
 */
module dev.tern.grpcjava {
  requires dev.tern.core;
  // NettyServerBuilder: the server keepalive and connection-age options grpc-java users set.
  requires dev.tern.netty;
  // grpc-api, an automatic module named in its manifest; the pom turns off the lint about it.
  requires io.grpc;
  requires java.logging;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  provides io.grpc.ManagedChannelProvider with
      dev.tern.grpcjava.internal.client.TernChannelProvider;
  provides io.grpc.ServerProvider with
      dev.tern.grpcjava.internal.server.TernServerProvider;
  // Tern's DNS resolution in grpc-java's registry, for applications without grpc-core.
  provides io.grpc.NameResolverProvider with
      dev.tern.grpcjava.internal.resolver.TernDnsNameResolverProvider;
}
