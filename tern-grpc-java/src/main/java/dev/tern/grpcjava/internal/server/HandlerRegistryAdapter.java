package dev.tern.grpcjava.internal.server;

import java.util.List;
import java.util.function.Supplier;

/**
 * A grpc-java fallback handler registry (for example grpc-java's {@code MutableHandlerRegistry}) as
 * Tern's: each lookup asks the grpc-java registry and converts the method it finds, so methods
 * added to it later are served too, under the server's {@code io.grpc} interceptors and binary log.
 * Thread-safe if the grpc-java registry is.
 */
final class HandlerRegistryAdapter extends dev.tern.HandlerRegistry {
  private final io.grpc.HandlerRegistry registry;
  private final List<io.grpc.ServerInterceptor> interceptors;
  private final io.grpc.BinaryLog binaryLog;
  private final Supplier<io.grpc.Context> callRoot;

  HandlerRegistryAdapter(
      io.grpc.HandlerRegistry registry,
      List<io.grpc.ServerInterceptor> interceptors,
      io.grpc.BinaryLog binaryLog,
      Supplier<io.grpc.Context> callRoot) {
    this.registry = registry;
    this.interceptors = List.copyOf(interceptors);
    this.binaryLog = binaryLog;
    this.callRoot = callRoot;
  }

  @Override
  public dev.tern.ServerMethodDefinition<?, ?> lookupMethod(
      String fullMethodName, String authority) {
    io.grpc.ServerMethodDefinition<?, ?> method = registry.lookupMethod(fullMethodName, authority);
    return method == null ? null : Services.toTern(method, interceptors, binaryLog, callRoot);
  }

  @Override
  public String toString() {
    return "grpc-java " + registry;
  }
}
