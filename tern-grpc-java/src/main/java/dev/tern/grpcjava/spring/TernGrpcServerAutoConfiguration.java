package dev.tern.grpcjava.spring;

import io.grpc.BindableService;
import io.grpc.ServerBuilder;
import io.grpc.TlsServerCredentials;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.grpc.server.autoconfigure.ConditionalOnGrpcNativeServer;
import org.springframework.boot.grpc.server.autoconfigure.ConditionalOnGrpcServerEnabled;
import org.springframework.boot.grpc.server.autoconfigure.ConditionalOnSpringGrpc;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerFactoryAutoConfiguration;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerFactoryCustomizer;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.grpc.server.DefaultGrpcServerFactory;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.ServerBuilderCustomizer;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.grpc.server.service.GrpcServiceConfigurer;
import org.springframework.grpc.server.service.GrpcServiceDiscoverer;

/**
 * The gRPC server of a Spring gRPC application whose grpc-java transport is {@code tern-grpc-java}:
 * Spring gRPC's {@link DefaultGrpcServerFactory}, which asks {@code io.grpc}'s providers for its
 * builder and so gets Tern's, started and stopped with the application context by a {@link
 * GrpcServerLifecycle}.
 *
 * <p>It stands where Spring gRPC's own Netty server factory would (its {@code
 * GrpcServerFactoryConfigurations}), under the same conditions, and under one more: neither of
 * grpc-java's Netty transports is on the class path, since with one of them Spring configures its
 * Netty factory, which names the Netty builder directly. Like Spring's, it backs off when the
 * application defines a {@link GrpcServerFactory} of its own (Spring's in-process one aside), and
 * it is fed the same beans: the services Spring discovers and configures, the {@code
 * spring.grpc.server.*} properties, the {@link ServerBuilderCustomizer}s and {@link
 * GrpcServerFactoryCustomizer}s. Of the properties it applies what Spring's Netty factory applies
 * through {@code io.grpc.ServerBuilder}: address, keepalive and connection management, inbound
 * message and metadata limits, shutdown grace period, and TLS from {@code spring.grpc.server.ssl.*}
 * as Spring's Netty factory makes it: the key of the SSL bundle named by {@code .bundle}, its trust
 * (or, with {@code .secure=false}, any client certificate) for {@code .client-auth}
 * (docs/grpc-java-bridge.md).
 */
@AutoConfiguration(after = GrpcServerFactoryAutoConfiguration.class)
@ConditionalOnClass({GrpcServerFactory.class, GrpcServerProperties.class})
@ConditionalOnMissingClass({
  "io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder",
  "io.grpc.netty.NettyServerBuilder"
})
@ConditionalOnSpringGrpc
@ConditionalOnGrpcServerEnabled
@ConditionalOnGrpcNativeServer
@ConditionalOnBean(BindableService.class)
@ConditionalOnMissingBean(
    value = GrpcServerFactory.class,
    ignoredType = "org.springframework.grpc.server.InProcessGrpcServerFactory")
@ConditionalOnProperty(
    prefix = "spring.grpc.server.inprocess",
    name = "exclusive",
    havingValue = "false",
    matchIfMissing = true)
@EnableConfigurationProperties(GrpcServerProperties.class)
public final class TernGrpcServerAutoConfiguration {

  /** For Spring. */
  public TernGrpcServerAutoConfiguration() {}

  /** The server factory, on the configured address, with the discovered services. */
  @Bean
  DefaultGrpcServerFactory<?> ternGrpcServerFactory(
      GrpcServerProperties properties,
      GrpcServiceDiscoverer services,
      GrpcServiceConfigurer serviceConfigurer,
      ObjectProvider<ServerBuilderCustomizer<?>> builderCustomizers,
      ObjectProvider<GrpcServerFactoryCustomizer> factoryCustomizers,
      ObjectProvider<SslBundles> sslBundles) {
    DefaultGrpcServerFactory<?> factory =
        newServerFactory(
            properties.determineAddress(),
            properties,
            builderCustomizers.orderedStream().toList(),
            properties.getSsl().determineEnabled()
                ? bundle(properties.getSsl(), sslBundles.getIfAvailable())
                : null);
    factoryCustomizers.orderedStream().forEach(customizer -> customizer.customize(factory));
    services.findServices().stream()
        .map(service -> serviceConfigurer.configure(service, factory))
        .forEach(factory::addService);
    return factory;
  }

  /** Starts the server with the application context and stops it, in its grace period, with it. */
  @Bean
  GrpcServerLifecycle ternGrpcServerLifecycle(
      @Qualifier("ternGrpcServerFactory") GrpcServerFactory factory,
      GrpcServerProperties properties,
      ApplicationEventPublisher eventPublisher) {
    return new GrpcServerLifecycle(factory, properties.getShutdownGracePeriod(), eventPublisher);
  }

  /**
   * The factory, whose builders get the properties first, then the application's customizers in
   * their order (as Spring's Netty factory does). Spring gRPC's factory is generic in the builder
   * it makes ({@code T extends ServerBuilder<T>}), to type its customizers; through {@code
   * io.grpc}'s providers that is a {@code ServerBuilder<?>}, which such a bound cannot be given, so
   * the factory and its customizers are raw here. Spring's customizer beans are themselves generic
   * in T: any builder will do for them.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static DefaultGrpcServerFactory<?> newServerFactory(
      String address,
      GrpcServerProperties properties,
      List<ServerBuilderCustomizer<?>> applicationCustomizers,
      SslBundle tls) {
    List<ServerBuilderCustomizer> customizers = new ArrayList<>();
    customizers.add(builder -> applyProperties(properties, (ServerBuilder<?>) builder));
    customizers.addAll(applicationCustomizers);
    if (tls == null) {
      return new DefaultGrpcServerFactory(address, customizers);
    }
    // Spring's factory turns these into io.grpc's TlsServerCredentials, which Tern's builder takes.
    KeyManagerFactory keys = tls.getManagers().getKeyManagerFactory();
    TrustManagerFactory trust =
        properties.getSsl().isSecure()
            ? tls.getManagers().getTrustManagerFactory()
            : InsecureTrustManagerFactory.INSTANCE;
    TlsServerCredentials.ClientAuth clientAuth = properties.getSsl().getClientAuth();
    return new DefaultGrpcServerFactory(address, customizers, keys, trust, clientAuth);
  }

  /**
   * The SSL bundle {@code spring.grpc.server.ssl.bundle} names, as Spring's Netty factory reads it.
   *
   * @throws IllegalStateException if no bundle is named, or the application has no bundles
   */
  private static SslBundle bundle(GrpcServerProperties.Ssl ssl, SslBundles bundles) {
    if (ssl.getBundle() == null) {
      throw new IllegalStateException(
          "spring.grpc.server.ssl.enabled is true but spring.grpc.server.ssl.bundle names no SSL"
              + " bundle: name one of spring.ssl.bundle.*");
    }
    if (bundles == null) {
      throw new IllegalStateException(
          "spring.grpc.server.ssl.bundle is \""
              + ssl.getBundle()
              + "\" but the application has no SslBundles (Spring Boot's SslAutoConfiguration)");
    }
    return bundles.getBundle(ssl.getBundle());
  }

  /**
   * What Spring gRPC's Netty factory sets from {@code spring.grpc.server.*}, through {@code
   * io.grpc.ServerBuilder}'s methods, which Tern's builder implements; unset durations are left to
   * Tern's defaults.
   */
  static void applyProperties(GrpcServerProperties properties, ServerBuilder<?> builder) {
    GrpcServerProperties.KeepAlive keepAlive = properties.getKeepAlive();
    setIfPresent(keepAlive.getTime(), builder::keepAliveTime);
    setIfPresent(keepAlive.getTimeout(), builder::keepAliveTimeout);
    setIfPresent(keepAlive.getMaxIdle(), builder::maxConnectionIdle);
    setIfPresent(keepAlive.getMaxAge(), builder::maxConnectionAge);
    setIfPresent(keepAlive.getMaxAgeGrace(), builder::maxConnectionAgeGrace);
    setIfPresent(keepAlive.getPermitTime(), builder::permitKeepAliveTime);
    builder.permitKeepAliveWithoutCalls(keepAlive.isPermitWithoutCalls());
    if (properties.getMaxInboundMessageSize() != null) {
      builder.maxInboundMessageSize(bytes(properties.getMaxInboundMessageSize().toBytes()));
    }
    if (properties.getMaxInboundMetadataSize() != null) {
      builder.maxInboundMetadataSize(bytes(properties.getMaxInboundMetadataSize().toBytes()));
    }
  }

  private static void setIfPresent(Duration value, BiConsumer<Long, TimeUnit> setter) {
    if (value != null) {
      setter.accept(value.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** A size in bytes as the builder takes it; a limit past 2 GiB is no limit an int can say. */
  private static int bytes(long size) {
    return (int) Math.min(size, Integer.MAX_VALUE);
  }
}
