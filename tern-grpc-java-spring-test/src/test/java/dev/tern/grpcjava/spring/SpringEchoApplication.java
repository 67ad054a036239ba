package dev.tern.grpcjava.spring;

import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientProperties;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.grpc.client.ChannelCredentialsProvider;
import org.springframework.grpc.client.ClientInterceptorsConfigurer;
import org.springframework.grpc.client.DefaultGrpcChannelFactory;
import org.springframework.grpc.client.GrpcChannelBuilderCustomizer;
import org.springframework.grpc.server.DefaultGrpcServerFactory;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.ServerBuilderCustomizer;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;
import org.springframework.grpc.server.service.GrpcServiceConfigurer;
import org.springframework.grpc.server.service.GrpcServiceDiscoverer;

/**
 * A Spring Boot application on Spring gRPC, as a user writes one: its service ({@link
 * EchoService}), a global server interceptor and an exception handler are ordinary beans, and
 * Spring gRPC registers the generated client stubs as beans on its default channel (configured in
 * the properties).
 *
 * <p>Spring gRPC 1.0 auto-configures a network server and a channel factory only for grpc-java's
 * Netty transports (grpc-netty or grpc-netty-shaded on the class path), each of which names that
 * transport's builder directly and so never reaches io.grpc's providers. Without them it configures
 * neither, and the application declares the two with Spring gRPC's own transport-free classes,
 * {@link DefaultGrpcServerFactory} and {@link DefaultGrpcChannelFactory}, which build through
 * {@code Grpc.newServerBuilderForPort} and {@code Grpc.newChannelBuilder}: with tern-grpc-java on
 * the class path, Tern's server and channel. Everything else (service discovery, global
 * interceptors, exception handlers, the health service, client properties) is Spring gRPC's
 * auto-configuration, unchanged.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class SpringEchoApplication {

  /** The server, from Spring gRPC's properties, services and builder customizers. */
  @Bean
  DefaultGrpcServerFactory<?> grpcServerFactory(
      GrpcServerProperties properties,
      GrpcServiceDiscoverer services,
      GrpcServiceConfigurer serviceConfigurer,
      ObjectProvider<ServerBuilderCustomizer<?>> customizers) {
    DefaultGrpcServerFactory<?> factory =
        serverFactory(properties.determineAddress(), customizers.orderedStream().toList());
    services.findServices().stream()
        .map(service -> serviceConfigurer.configure(service, factory))
        .forEach(factory::addService);
    return factory;
  }

  /** Starts the server with the application context and stops it with it, as Spring gRPC does. */
  @Bean
  GrpcServerLifecycle grpcServerLifecycle(
      GrpcServerFactory factory,
      GrpcServerProperties properties,
      ApplicationEventPublisher eventPublisher) {
    return new GrpcServerLifecycle(factory, properties.getShutdownGracePeriod(), eventPublisher);
  }

  /** Channels, with Spring gRPC's client properties, credentials, interceptors and customizers. */
  @Bean
  DefaultGrpcChannelFactory<?> grpcChannelFactory(
      GrpcClientProperties properties,
      ClientInterceptorsConfigurer interceptors,
      ChannelCredentialsProvider credentials,
      ObjectProvider<GrpcChannelBuilderCustomizer<?>> customizers) {
    DefaultGrpcChannelFactory<?> factory =
        channelFactory(customizers.orderedStream().toList(), interceptors);
    factory.setCredentialsProvider(credentials);
    factory.setVirtualTargets(properties);
    return factory;
  }

  /**
   * Puts the server's port in the environment as {@code local.grpc.port} once it listens (as Boot
   * does {@code local.server.port} for a web server): the client's address names it, and the client
   * stubs Spring gRPC registers are created lazily, at their first use.
   */
  @Bean
  ApplicationListener<GrpcServerStartedEvent> localGrpcPort(ConfigurableEnvironment environment) {
    return started ->
        environment
            .getPropertySources()
            .addFirst(
                new MapPropertySource("local.grpc", Map.of("local.grpc.port", started.getPort())));
  }

  /**
   * First of the global interceptors (Spring gRPC orders them by {@code @Order}), so that it sees
   * the server's own call rather than one wrapped by Spring's exception-handling interceptor.
   */
  @Bean
  @GlobalServerInterceptor
  @Order(Ordered.HIGHEST_PRECEDENCE)
  CallRecorder callRecorder() {
    return new CallRecorder();
  }

  /** Turns the service's IllegalStateException into FAILED_PRECONDITION; others are left alone. */
  @Bean
  GrpcExceptionHandler illegalStateHandler() {
    return exception ->
        exception instanceof IllegalStateException
            ? Status.FAILED_PRECONDITION.withDescription(exception.getMessage()).asException()
            : null;
  }

  // The two factories are generic in the builder type they make (T extends ServerBuilder<T>), to
  // type their customizers; going through io.grpc's providers that type is ServerBuilder<?> (or
  // ManagedChannelBuilder<?>), which such a bound cannot be given, so they are made raw. Spring
  // gRPC's customizer beans are themselves generic in T: any builder will do for them.
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static DefaultGrpcServerFactory<?> serverFactory(
      String address, List<ServerBuilderCustomizer<?>> customizers) {
    return new DefaultGrpcServerFactory(address, (List) customizers);
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static DefaultGrpcChannelFactory<?> channelFactory(
      List<GrpcChannelBuilderCustomizer<?>> customizers,
      ClientInterceptorsConfigurer interceptors) {
    return new DefaultGrpcChannelFactory((List) customizers, interceptors);
  }
}
