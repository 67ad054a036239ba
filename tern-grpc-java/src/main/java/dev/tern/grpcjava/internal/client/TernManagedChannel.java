package dev.tern.grpcjava.internal.client;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's {@code ManagedChannel} over a Tern channel. Each {@code newCall} passes through the
 * {@code io.grpc} interceptors the builder was given (run as {@code io.grpc} interceptors, the last
 * added first) and ends in a {@link TernClientCall}; the life cycle and connectivity methods are
 * the Tern channel's. Thread-safe, as the Tern channel is.
 */
final class TernManagedChannel extends io.grpc.ManagedChannel {
  private final dev.tern.ManagedChannel tern;
  private final io.grpc.Channel calls;

  TernManagedChannel(dev.tern.ManagedChannel tern, List<io.grpc.ClientInterceptor> interceptors) {
    this.tern = tern;
    this.calls = io.grpc.ClientInterceptors.intercept(new CallChannel(tern), interceptors);
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
    private final dev.tern.Channel tern;

    CallChannel(dev.tern.Channel tern) {
      this.tern = tern;
    }

    @Override
    public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> newCall(
        io.grpc.MethodDescriptor<ReqT, RespT> method, io.grpc.CallOptions callOptions) {
      return new TernClientCall<>(tern, method, callOptions);
    }

    @Override
    public String authority() {
      return tern.authority();
    }
  }
}
