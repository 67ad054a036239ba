package dev.tern;

/**
 * A virtual connection to a service, from which calls are made. Thread-safe; a channel is meant to
 * be shared by many calls and threads.
 */
public abstract class Channel {
  /** For subclasses. */
  protected Channel() {}

  /**
   * Creates a call that is not started yet. Creating a call does no I/O.
   *
   * @param method the method to call
   * @param callOptions per-call options such as a deadline or credentials
   */
  public abstract <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions);

  /** The authority ({@code host[:port]}) the calls of this channel are addressed to. */
  public abstract String authority();
}
