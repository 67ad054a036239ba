package dev.tern.grpcjava.spring;

import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.grpc.client.autoconfigure.CompositeChannelFactoryAutoConfiguration;
import org.springframework.boot.grpc.client.autoconfigure.ConditionalOnGrpcClientEnabled;
import org.springframework.boot.grpc.client.autoconfigure.GrpcChannelFactoryCustomizer;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientAutoConfiguration;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.grpc.client.ChannelCredentialsProvider;
import org.springframework.grpc.client.ClientInterceptorsConfigurer;
import org.springframework.grpc.client.DefaultGrpcChannelFactory;
import org.springframework.grpc.client.GrpcChannelBuilderCustomizer;
import org.springframework.grpc.client.GrpcChannelFactory;

/**
 * The channel factory of a Spring gRPC application whose grpc-java transport is {@code
 * tern-grpc-java}: Spring gRPC's {@link DefaultGrpcChannelFactory}, which builds through {@code
 * Grpc.newChannelBuilder} and so gets Tern's channels; it closes them when the context closes.
 *
 * <p>It stands where Spring gRPC's own Netty channel factory would (its {@code
 * GrpcChannelFactoryConfigurations}), under the same conditions, and under one more: neither of
 * grpc-java's Netty transports is on the class path. Like Spring's, it backs off when the
 * application defines a {@link GrpcChannelFactory} of its own (Spring's in-process one aside), and
 * it is fed the same beans: the {@code spring.grpc.client.*} properties (as virtual targets, and
 * through Spring's own channel builder customizer), the channel credentials, the global client
 * interceptors, the {@link GrpcChannelBuilderCustomizer}s and {@link
 * GrpcChannelFactoryCustomizer}s. It comes before Spring's composite channel factory, which counts
 * the factories there are.
 */
@AutoConfiguration(
    after = GrpcClientAutoConfiguration.class,
    before = CompositeChannelFactoryAutoConfiguration.class)
@ConditionalOnClass({GrpcChannelFactory.class, GrpcClientProperties.class})
@ConditionalOnMissingClass({
  "io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder",
  "io.grpc.netty.NettyChannelBuilder"
})
@ConditionalOnGrpcClientEnabled
@ConditionalOnMissingBean(
    value = GrpcChannelFactory.class,
    ignoredType = "org.springframework.grpc.client.InProcessGrpcChannelFactory")
@ConditionalOnProperty(
    prefix = "spring.grpc.client.inprocess",
    name = "exclusive",
    havingValue = "false",
    matchIfMissing = true)
@EnableConfigurationProperties(GrpcClientProperties.class)
public final class TernGrpcClientAutoConfiguration {

  /** For Spring. */
  public TernGrpcClientAutoConfiguration() {}

  /** The channel factory, with Spring gRPC's client configuration. */
  @Bean
  DefaultGrpcChannelFactory<?> ternGrpcChannelFactory(
      GrpcClientProperties properties,
      ClientInterceptorsConfigurer interceptors,
      ChannelCredentialsProvider credentials,
      ObjectProvider<GrpcChannelBuilderCustomizer<?>> builderCustomizers,
      ObjectProvider<GrpcChannelFactoryCustomizer> factoryCustomizers) {
    DefaultGrpcChannelFactory<?> factory =
        newChannelFactory(builderCustomizers.orderedStream().toList(), interceptors);
    factory.setCredentialsProvider(credentials);
    factory.setVirtualTargets(properties);
    factoryCustomizers.orderedStream().forEach(customizer -> customizer.customize(factory));
    return factory;
  }

  /**
   * Raw for the reason {@link TernGrpcServerAutoConfiguration}'s server factory is: the builder
   * type ({@code T extends ManagedChannelBuilder<T>}) is whatever {@code io.grpc}'s provider makes.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static DefaultGrpcChannelFactory<?> newChannelFactory(
      List<GrpcChannelBuilderCustomizer<?>> customizers,
      ClientInterceptorsConfigurer interceptors) {
    return new DefaultGrpcChannelFactory((List) customizers, interceptors);
  }
}
