package dev.tern;

import java.util.Objects;

/** A method and the handler that serves it. Immutable; thread-safe. */
public final class ServerMethodDefinition<ReqT, RespT> {
  private final MethodDescriptor<ReqT, RespT> method;
  private final ServerCallHandler<ReqT, RespT> handler;

  private ServerMethodDefinition(
      MethodDescriptor<ReqT, RespT> method, ServerCallHandler<ReqT, RespT> handler) {
    this.method = Objects.requireNonNull(method, "method");
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  /** Pairs {@code method} with {@code handler}. */
  public static <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> create(
      MethodDescriptor<ReqT, RespT> method, ServerCallHandler<ReqT, RespT> handler) {
    return new ServerMethodDefinition<>(method, handler);
  }

  /** The method. */
  public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return method;
  }

  /** The handler. */
  public ServerCallHandler<ReqT, RespT> getServerCallHandler() {
    return handler;
  }

  /** The same method with another handler (used by interceptors). */
  public ServerMethodDefinition<ReqT, RespT> withServerCallHandler(
      ServerCallHandler<ReqT, RespT> handler) {
    return new ServerMethodDefinition<>(method, handler);
  }

  @Override
  public String toString() {
    return "ServerMethodDefinition[" + method.getFullMethodName() + "]";
  }
}
