package dev.tern;

/** Starts handling an incoming call. Thread-safe implementations: one handler serves many calls. */
@FunctionalInterface
public interface ServerCallHandler<ReqT, RespT> {
  /**
   * Called when a call arrives; returns the listener that receives its request messages. May call
   * {@code call.request(n)} and send on {@code call}. An exception thrown here ends the call with
   * UNKNOWN; the server goes on serving.
   */
  ServerCall.Listener<ReqT> startCall(ServerCall<ReqT, RespT> call, Metadata headers);
}
