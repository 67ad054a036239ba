package dev.tern.grpcjava.internal.client;

import dev.tern.grpcjava.internal.convert.Methods;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's {@code ManagedChannel} over a Tern channel. Each {@code newCall} passes through the
 * {@code io.grpc} interceptors the builder was given (run as {@code io.grpc} interceptors, the last
 * added first) and the grpc-java binary log if one was set, and ends in a {@link TernClientCall};
 * the life cycle and connectivity methods are the Tern channel's. Thread-safe, as the Tern channel
 * is.
 */
final class TernManagedChannel extends io.grpc.ManagedChannel {
  private final dev.tern.ManagedChannel tern;
  private final io.grpc.Channel calls;

  /**
   * A channel whose calls go through {@code interceptors}, then {@code binaryLog} (if not null),
   * then to {@code tern}.
   */
  TernManagedChannel(
      dev.tern.ManagedChannel tern,
      List<io.grpc.ClientInterceptor> interceptors,
      io.grpc.BinaryLog binaryLog) {
    this.tern = tern;
    io.grpc.Channel bottom = new CallChannel(tern);
    if (binaryLog != null) {
      bottom = binaryLog.wrapChannel(bottom);
    }
    this.calls = io.grpc.ClientInterceptors.intercept(bottom, interceptors);
  }

  @Override
  public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> newCall(
      io.grpc.MethodDescriptor<ReqT, RespT> method, io.grpc.CallOptions callOptions) {
    return calls.newCall(method, callOptions);
  }

  @Override
  public String authority() {
    return tern.authority();
  }

  @Override
  public io.grpc.ManagedChannel shutdown() {
    tern.shutdown();
    return this;
  }

  @Override
  public boolean isShutdown() {
    return tern.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return tern.isTerminated();
  }

  @Override
  public io.grpc.ManagedChannel shutdownNow() {
    tern.shutdownNow();
    return this;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return tern.awaitTermination(timeout, unit);
  }

  @Override
  public io.grpc.ConnectivityState getState(boolean requestConnection) {
    return io.grpc.ConnectivityState.valueOf(tern.getState(requestConnection).name());
  }

  @Override
  public void notifyWhenStateChanged(io.grpc.ConnectivityState source, Runnable callback) {
    tern.notifyWhenStateChanged(dev.tern.ConnectivityState.valueOf(source.name()), callback);
  }

  @Override
  public void resetConnectBackoff() {
    tern.resetConnectBackoff();
  }

  @Override
  public void enterIdle() {
    tern.enterIdle();
  }

  @Override
  public String toString() {
    return "TernManagedChannel{" + tern + "}";
  }

  /** The channel under the interceptors: makes the Tern-backed calls. Thread-safe. */
  private static final class CallChannel extends io.grpc.Channel {
    /**
     * Bounds {@link #methods}: generated stubs hold one descriptor per method for the life of the
     * program, but a program that makes descriptors per call would otherwise fill the map.
     */
    private static final int MAX_METHODS = 4096;

    private final dev.tern.Channel tern;

    /**
     * Tern's descriptor for each grpc-java descriptor called, made on its first call rather than on
     * every one (grpc-java's descriptors compare by identity). Thread-safe.
     */
    private final Map<io.grpc.MethodDescriptor<?, ?>, dev.tern.MethodDescriptor<?, ?>> methods =
        new ConcurrentHashMap<>();

    CallChannel(dev.tern.Channel tern) {
      this.tern = tern;
    }

    @Override
    public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> newCall(
        io.grpc.MethodDescriptor<ReqT, RespT> method, io.grpc.CallOptions callOptions) {
      return new TernClientCall<>(tern, method, ternMethod(method), callOptions);
    }

    @SuppressWarnings("unchecked") // each entry maps a descriptor to its own conversion
    private <ReqT, RespT> dev.tern.MethodDescriptor<ReqT, RespT> ternMethod(
        io.grpc.MethodDescriptor<ReqT, RespT> method) {
      dev.tern.MethodDescriptor<?, ?> converted = methods.get(method);
      if (converted == null) {
        converted = Methods.toTern(method);
        if (methods.size() < MAX_METHODS) {
          methods.putIfAbsent(method, converted);
        }
      }
      return (dev.tern.MethodDescriptor<ReqT, RespT>) converted;
    }

    @Override
    public String authority() {
      return tern.authority();
    }
  }
}
