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
  // The Spring Boot auto-configuration (dev.tern.grpcjava.spring): optional dependencies, at run
  // time only in Spring applications, the only ones that load it. All automatic modules; Spring
  // Framework's and Boot's are named in their manifests, Spring gRPC 1.0's jars name none, so
  // theirs come from the jar file names (artifactId-version.jar, as Maven stores them).
  requires static spring.core;
  requires static spring.beans;
  requires static spring.context;
  requires static spring.boot;
  requires static spring.boot.autoconfigure;
  requires static spring.grpc.core;
  requires static spring.grpc.server.spring.boot.autoconfigure;
  requires static spring.grpc.client.spring.boot.autoconfigure;
  // Netty's trust-anything trust manager, for spring.grpc.server.ssl.secure=false as Spring's own
  // Netty factory uses it; Netty comes with tern-netty.
  requires io.netty.handler;

  // Spring instantiates the auto-configurations and calls their @Bean methods reflectively.
  opens dev.tern.grpcjava.spring to
      spring.core,
      spring.beans,
      spring.context;

  provides io.grpc.ManagedChannelProvider with
      dev.tern.grpcjava.internal.client.TernChannelProvider;
  provides io.grpc.ServerProvider with
      dev.tern.grpcjava.internal.server.TernServerProvider;
  // Tern's DNS resolution in grpc-java's registry, for applications without grpc-core.
  provides io.grpc.NameResolverProvider with
      dev.tern.grpcjava.internal.resolver.TernDnsNameResolverProvider;
}
