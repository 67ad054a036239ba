package dev.tern.grpcjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.grpc.server.DefaultGrpcServerFactory;
import org.springframework.grpc.server.GrpcServerFactory;
import org.springframework.grpc.server.lifecycle.GrpcServerLifecycle;
import org.springframework.grpc.server.service.GrpcServiceConfigurer;
import org.springframework.grpc.server.service.GrpcServiceDiscoverer;

/**
 * An application that declares a {@link GrpcServerFactory} of its own keeps it: tern-grpc-java's
 * auto-configuration backs off, as Spring gRPC's own does, and registers neither a factory nor a
 * lifecycle of its own.
 */
class OwnServerFactoryTest {

  /** The application's own factory: Spring gRPC's, on a loopback port, noting what it makes. */
  static final class OwnServerFactory implements GrpcServerFactory {
    private final DefaultGrpcServerFactory<?> delegate =
        new DefaultGrpcServerFactory<>("localhost:0", List.of());
    final List<Server> made = new CopyOnWriteArrayList<>();

    @Override
    public Server createServer() {
      Server server = delegate.createServer();
      made.add(server);
      return server;
    }

    @Override
    public void addService(ServerServiceDefinition service) {
      delegate.addService(service);
    }
  }

  /**
   * Not a component (SpringEchoApplication's scan of this package passes it by): a source of its
   * own, with Boot's auto-configuration, the echo service and the factory and lifecycle an
   * application that picks its own server declares.
   */
  @EnableAutoConfiguration
  @Import(EchoService.class)
  static class OwnServerFactoryApplication {
    @Bean
    OwnServerFactory ownServerFactory(
        GrpcServiceDiscoverer services, GrpcServiceConfigurer serviceConfigurer) {
      OwnServerFactory factory = new OwnServerFactory();
      services.findServices().stream()
          .map(service -> serviceConfigurer.configure(service, factory))
          .forEach(factory::addService);
      return factory;
    }

    @Bean
    GrpcServerLifecycle ownServerLifecycle(
        OwnServerFactory factory, ApplicationEventPublisher eventPublisher) {
      return new GrpcServerLifecycle(factory, Duration.ofSeconds(5), eventPublisher);
    }
  }

  @Test
  void applicationsOwnServerFactoryIsKept() {
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(OwnServerFactoryApplication.class)
            .web(WebApplicationType.NONE)
            .properties("spring.main.banner-mode=off")
            .run()) {
      OwnServerFactory own = app.getBean(OwnServerFactory.class);

      assertThat(app.getBeansOfType(GrpcServerFactory.class).values()).containsExactly(own);
      assertThat(app.getBeansOfType(GrpcServerLifecycle.class).values())
          .singleElement()
          .satisfies(lifecycle -> assertThat(lifecycle.getFactory()).isSameAs(own));
      // The server that runs is the one the application's factory made.
      assertThat(own.made).hasSize(1);
      assertThat(own.made.get(0).isShutdown()).isFalse();
    }
  }
}
