package dev.tern;

import java.util.Objects;

/**
 * Follows one attempt of a client call (one stream) from the channel's side: when it is created,
 * its headers go out, each message goes out or comes in (with its size), the response headers and
 * trailers arrive, and how it ends. Install factories per call with {@link
 * CallOptions#withStreamTracerFactory}; a load balancer may also install one per pick with {@link
 * LoadBalancer.PickResult#withSubchannel(LoadBalancer.Subchannel, Factory)}, to count the calls in
 * flight on each server, for example. A call under a retry or hedging policy gets a new tracer for
 * each attempt; {@link StreamInfo} says which attempt it is. An attempt the balancer's pick fails
 * (a drop, or an error for a call that does not wait for ready) gets tracers only when the pick
 * labeled it ({@link #addOptionalLabel}): they hear the labels, then {@link #streamClosed}.
 *
 * <p>Every method does nothing by default. Methods run on the caller's and the transport's threads
 * and must be fast. They should not throw: the runtime catches what they throw, logs it once per
 * stream, and carries on, so a faulty tracer never changes the call. An instance serves one stream.
 * Outbound events ({@code outbound*}) come one at a time from the thread writing the call, inbound
 * ones ({@code inbound*}, {@code streamClosed}) one at a time from the transport; the two kinds may
 * overlap, so state shared between them, or read by other threads, must be thread-safe.
 *
 * <p>With no factory installed, a call creates no tracer and pays nothing.
 */
public abstract class ClientStreamTracer {
  /** For subclasses. */
  protected ClientStreamTracer() {}

  /**
   * The stream was created and is about to start; first event but for {@link #addOptionalLabel}.
   *
   * @param transportAttrs the transport's attributes (may be empty if it has none yet)
   * @param headers the request headers (read-only here)
   */
  public void streamCreated(Attributes transportAttrs, Metadata headers) {}

  /** The request headers were handed to the transport. */
  public void outboundHeaders() {}

  /** The response headers arrived (not called for a Trailers-Only response). */
  public void inboundHeaders(Metadata headers) {}

  /** The response trailers arrived (also called when the stream ends without any from the peer). */
  public void inboundTrailers(Metadata trailers) {}

  /** Message number {@code seqNo} (0, 1, ...) of this stream was written. */
  public void outboundMessage(int seqNo) {}

  /** Message number {@code seqNo} (0, 1, ...) of this stream was read. */
  public void inboundMessage(int seqNo) {}

  /**
   * An outgoing message takes {@code bytes} on the wire, after compression, without its 5-byte
   * prefix. Reported by transports that frame messages (Netty; not in-process).
   */
  public void outboundWireSize(long bytes) {}

  /** An outgoing message was {@code bytes} long before compression. */
  public void outboundUncompressedSize(long bytes) {}

  /**
   * An incoming message took {@code bytes} on the wire, before decompression, without its 5-byte
   * prefix; reported when its prefix is parsed, before its {@code inboundMessage}. Reported by
   * transports that frame messages (Netty; not in-process).
   */
  public void inboundWireSize(long bytes) {}

  /** An incoming message was {@code bytes} long after decompression. */
  public void inboundUncompressedSize(long bytes) {}

  /**
   * The channel's adaptive throttling ({@code ManagedChannelBuilder.adaptiveThrottling}) refused
   * this attempt locally: it was never sent, and {@link #streamClosed} with its RESOURCE_EXHAUSTED
   * status follows at once (no other event comes before but {@link #addOptionalLabel}). Such an
   * attempt is not retried.
   */
  public void attemptThrottled() {}

  /**
   * The balancer's pick for this attempt named an optional metric label of it ({@link
   * LoadBalancer.PickSubchannelArgs#addOptionalLabel}): gRFC A78's {@code grpc.lb.locality}, A89's
   * {@code grpc.lb.backend_service}. Comes before {@link #streamCreated} (or, for an attempt the
   * pick failed, before {@link #streamClosed}), from the thread that picked; a key may come more
   * than once, and the last value counts.
   *
   * @param key the label's name
   * @param value its value
   */
  public void addOptionalLabel(String key, String value) {}

  /** The stream ended with {@code status} (OK or not). Called exactly once, last. */
  public void streamClosed(Status status) {}

  /** Creates a tracer per stream. Thread-safe. */
  public abstract static class Factory {
    /** For subclasses. */
    protected Factory() {}

    /**
     * A tracer for a new stream, or null to trace nothing for it. Called before the stream is made,
     * so the factory may add headers to send with this attempt (a propagated trace context, for
     * example). A transparent retry may pass the same headers again, so a factory replaces its
     * header ({@code discardAll}, then {@code put}) rather than adding another.
     *
     * @param info what the stream is for
     * @param headers the request headers of this attempt
     */
    public abstract ClientStreamTracer newClientStreamTracer(StreamInfo info, Metadata headers);
  }

  /** What a stream is for: its call's options and which attempt it is. Immutable; thread-safe. */
  public static final class StreamInfo {
    private final CallOptions callOptions;
    private final int previousAttempts;
    private final boolean transparentRetry;
    private final boolean hedging;

    /** The first (or only) attempt of a call made with {@code callOptions}. */
    public StreamInfo(CallOptions callOptions) {
      this(callOptions, 0, false, false);
    }

    private StreamInfo(
        CallOptions callOptions, int previousAttempts, boolean transparentRetry, boolean hedging) {
      this.callOptions = Objects.requireNonNull(callOptions, "callOptions");
      if (previousAttempts < 0) {
        throw new IllegalArgumentException("previousAttempts < 0: " + previousAttempts);
      }
      this.previousAttempts = previousAttempts;
      this.transparentRetry = transparentRetry;
      this.hedging = hedging;
    }

    /** A builder starting from the defaults: no options set, first attempt. */
    public static Builder newBuilder() {
      return new Builder();
    }

    /** A builder holding this info's values. */
    public Builder toBuilder() {
      return new Builder()
          .setCallOptions(callOptions)
          .setPreviousAttempts(previousAttempts)
          .setIsTransparentRetry(transparentRetry)
          .setIsHedging(hedging);
    }

    /** The call's options. */
    public CallOptions getCallOptions() {
      return callOptions;
    }

    /**
     * How many attempts of this call came before this one (its {@code grpc-previous-rpc-attempts});
     * 0 for the first. A transparent retry has the count of the attempt it replaces.
     */
    public int getPreviousAttempts() {
      return previousAttempts;
    }

    /** Whether this attempt resends one the server refused or that never left the client. */
    public boolean isTransparentRetry() {
      return transparentRetry;
    }

    /** Whether the call runs under a hedging policy (its attempts may run in parallel). */
    public boolean isHedging() {
      return hedging;
    }

    @Override
    public String toString() {
      return "StreamInfo{callOptions="
          + callOptions
          + ", previousAttempts="
          + previousAttempts
          + ", transparentRetry="
          + transparentRetry
          + ", hedging="
          + hedging
          + "}";
    }

    /** Builds a {@link StreamInfo}. Not thread-safe. */
    public static final class Builder {
      private CallOptions callOptions = CallOptions.DEFAULT;
      private int previousAttempts;
      private boolean transparentRetry;
      private boolean hedging;

      private Builder() {}

      /** The call's options; default {@link CallOptions#DEFAULT}. */
      public Builder setCallOptions(CallOptions callOptions) {
        this.callOptions = Objects.requireNonNull(callOptions, "callOptions");
        return this;
      }

      /** Attempts before this one; default 0. Must not be negative. */
      public Builder setPreviousAttempts(int previousAttempts) {
        if (previousAttempts < 0) {
          throw new IllegalArgumentException("previousAttempts < 0: " + previousAttempts);
        }
        this.previousAttempts = previousAttempts;
        return this;
      }

      /** Whether it is a transparent retry; default false. */
      public Builder setIsTransparentRetry(boolean transparentRetry) {
        this.transparentRetry = transparentRetry;
        return this;
      }

      /** Whether the call is hedged; default false. */
      public Builder setIsHedging(boolean hedging) {
        this.hedging = hedging;
        return this;
      }

      /** The info. */
      public StreamInfo build() {
        return new StreamInfo(callOptions, previousAttempts, transparentRetry, hedging);
      }
    }
  }
}
