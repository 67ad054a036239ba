package dev.tern.netty.internal.server;

/**
 * A call on Tern's HTTP/2 engine, as {@link EngineServerHandler} tracks it beside the call's own
 * {@link ServerStreamState}: the response bytes handed to the engine that have not been reported
 * sent yet (the engine may hold them until the client gives flow-control credit).
 *
 * <p>Event loop only; not thread-safe.
 */
final class EngineCall {
  final ServerStreamState state;

  /** Response DATA bytes given to the engine. */
  long handedBytes;

  /** Of those, the bytes reported to the stream as sent. */
  long reportedBytes;

  /** Whether the trailers were given to the engine, and whether that was reported. */
  boolean trailersHanded;

  boolean trailersReported;

  /** Whether the call is in {@link EngineWrites}' list of calls with something to report. */
  boolean pending;

  EngineCall(ServerStreamState state) {
    this.state = state;
  }

  /** Whether everything handed to the engine has been reported. */
  boolean allReported() {
    return reportedBytes == handedBytes && trailersHanded == trailersReported;
  }
}
