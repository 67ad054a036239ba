package dev.tern.grpcjava.spring;

import io.grpc.Status;
import java.util.Map;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;

/**
 * A Spring Boot application on Spring gRPC, as a user writes one: its service ({@link
 * EchoService}), a global server interceptor and an exception handler are ordinary beans, and
 * Spring gRPC registers the generated client stubs as beans on its default channel (configured in
 * the properties). Nothing in it names Tern: the server and channel factories come from
 * tern-grpc-java's auto-configuration, found on the class path in grpc-java's Netty transport's
 * place.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class SpringEchoApplication {

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
}
