/**
 * Spring gRPC on Tern: Spring Boot auto-configurations that give a Spring gRPC application with
 * {@code tern-grpc-java} in place of grpc-java's Netty transport the server and channel factories
 * Spring gRPC 1.0 configures only for that transport ({@link
 * dev.tern.grpcjava.spring.TernGrpcServerAutoConfiguration}, {@link
 * dev.tern.grpcjava.spring.TernGrpcClientAutoConfiguration}). They use Spring gRPC's own
 * transport-free factories, which build through {@code io.grpc}'s providers, so the calls reach
 * Tern as any grpc-java code's do; nothing here names the bridge's internals. Loaded by Spring Boot
 * alone (listed in {@code META-INF/spring/...AutoConfiguration.imports}), never by other
 * applications, which need not have Spring on their class path.
 */
package dev.tern.grpcjava.spring;
