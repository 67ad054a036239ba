package dev.tern;

import java.util.Objects;

/**
 * Follows one attempt of a client call (one stream) from the channel's side. A load balancer gets
 * one installed per pick with {@link
 * LoadBalancer.PickResult#withSubchannel(LoadBalancer.Subchannel, Factory)}, to count the calls in
 * flight on each server, for example.
 *
 * <p>Methods run on transport threads and must be fast and never throw; an instance serves one
 * stream, so it needs no locking for its own state.
 */
public abstract class ClientStreamTracer {
  /** For subclasses. */
  protected ClientStreamTracer() {}

  /** The stream ended with {@code status} (OK or not). Called exactly once. */
  public void streamClosed(Status status) {}

  /** Creates a tracer per stream. Thread-safe. */
  public abstract static class Factory {
    /** For subclasses. */
    protected Factory() {}

    /**
     * A tracer for a new stream.
     *
     * @param info what the stream is for
     * @param headers the request headers (read-only here)
     */
    public abstract ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers);
  }

  /** What a stream is for. Immutable; thread-safe. */
  public static final class StreamInfo {
    private final CallOptions callOptions;

    /** The stream of a call made with {@code callOptions}. */
    public StreamInfo(CallOptions callOptions) {
      this.callOptions = Objects.requireNonNull(callOptions, "callOptions");
    }

    /** The call's options. */
    public CallOptions getCallOptions() {
      return callOptions;
    }
  }
}
