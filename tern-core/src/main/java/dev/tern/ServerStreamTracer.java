package dev.tern;

import java.util.Objects;

/**
 * Follows one call (one stream) on the server: its method once known, each message in and out (with
 * its size), the response headers going out, and how it ends. Install factories with {@link
 * ServerBuilder#addStreamTracerFactory}; each stream the server accepts gets one tracer per
 * factory, before the method is looked up, so streams rejected for an unknown method or a bad
 * header are traced too (they are closed without {@link #serverCallStarted}).
 *
 * <p>Every method does nothing by default. Methods run on the transport's and the application's
 * threads and must be fast. They should not throw: the runtime catches what they throw, logs it
 * once per stream, and carries on, so a faulty tracer never changes the call. An instance serves
 * one stream. Outbound events come one at a time from the thread responding, inbound ones one at a
 * time from the transport; the two kinds may overlap, so state shared between them, or read by
 * other threads, must be thread-safe.
 *
 * <p>With no factory installed, a server creates no tracer and pays nothing.
 */
public abstract class ServerStreamTracer {
  /** For subclasses. */
  protected ServerStreamTracer() {}

  /**
   * The context the call runs in: given the one the server made for it (its deadline, cancellation
   * and the server's values), return it or a child of it holding values of this tracer's (a span,
   * for example), which the call's interceptors and handler then see. Called once the method is
   * found, before {@link #serverCallStarted}; with several tracers, each gets the previous one's
   * result. Must not return null. The default returns {@code context}.
   */
  public Context filterContext(Context context) {
    return context;
  }

  /** The method was found and the call is about to reach its handler. */
  public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {}

  /**
   * The server refused the call at admission, before its handler ran, for {@code refusal}. At most
   * once per stream. A call refused on arrival is not {@linkplain #serverCallStarted started}, and
   * {@link #streamClosed} follows with the status the client gets. A call whose deadline passed
   * while it waited for the server's executor was started, and is reported when the executor
   * reaches it: after {@link #streamClosed} if the deadline's timer ended the stream first.
   */
  public void callRefused(Refusal refusal) {}

  /** Why a server refused a call before its handler ran ({@link #callRefused}). */
  public enum Refusal {
    /**
     * The call's deadline had already passed when it arrived (a {@code grpc-timeout} of zero):
     * DEADLINE_EXCEEDED, its request never decoded.
     */
    DEADLINE_PASSED_ON_ARRIVAL,
    /**
     * The call's deadline passed while it waited for the server's executor to start it:
     * DEADLINE_EXCEEDED, its handler never called and its request never decoded.
     */
    DEADLINE_PASSED_IN_QUEUE,
    /** Every slot of the server's {@code maxConcurrentCalls} was taken: RESOURCE_EXHAUSTED. */
    MAX_CONCURRENT_CALLS,
    /**
     * The server's adaptive concurrency limit, learned from its calls' latency, was reached ({@code
     * ServerBuilder.adaptiveConcurrencyLimit}): RESOURCE_EXHAUSTED.
     */
    ADAPTIVE_CONCURRENCY_LIMIT,
    /**
     * The server was busy (near its adaptive limit) and the call's time left on arrival was shorter
     * than the median latency of its recent unary calls (of its method's recent streams, for a
     * server-streaming call), so it would most likely not finish in time: DEADLINE_EXCEEDED, its
     * request never decoded.
     */
    DEADLINE_SHORTER_THAN_RECENT_LATENCY
  }

  /** The response headers were handed to the transport. */
  public void outboundHeaders() {}

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
   * The stream ended: OK once the server's close was sent, otherwise why it broke (the status the
   * server closed with, or a client cancel, deadline or lost connection). Called once, and last but
   * for a {@link #callRefused} of {@link Refusal#DEADLINE_PASSED_IN_QUEUE}.
   */
  public void streamClosed(Status status) {}

  /** Creates a tracer per stream. Thread-safe. */
  public abstract static class Factory {
    /** For subclasses. */
    protected Factory() {}

    /**
     * A tracer for a new stream, or null to trace nothing for it.
     *
     * @param fullMethodName the method the client asked for ({@code "pkg.Service/Method"}), which
     *     may not exist
     * @param headers the request headers (read-only here)
     */
    public abstract ServerStreamTracer newServerStreamTracer(
        String fullMethodName, Metadata headers);
  }

  /**
   * What a started call is: its method, its transport's attributes and its authority. Immutable;
   * thread-safe.
   *
   * @param <ReqT> the request type
   * @param <RespT> the response type
   */
  public static final class ServerCallInfo<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> methodDescriptor;
    private final Attributes attributes;
    private final String authority;

    /**
     * The info of a call of {@code methodDescriptor}.
     *
     * @param attributes the transport's attributes; null means none
     * @param authority the request's {@code :authority}, or null
     */
    public ServerCallInfo(
        MethodDescriptor<ReqT, RespT> methodDescriptor, Attributes attributes, String authority) {
      this.methodDescriptor = Objects.requireNonNull(methodDescriptor, "methodDescriptor");
      this.attributes = attributes != null ? attributes : Attributes.EMPTY;
      this.authority = authority;
    }

    /** The method called. */
    public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
      return methodDescriptor;
    }

    /** The transport's attributes (after server transport filters); never null. */
    public Attributes getAttributes() {
      return attributes;
    }

    /** The request's {@code :authority}, or null. */
    public String getAuthority() {
      return authority;
    }

    @Override
    public String toString() {
      return "ServerCallInfo{method="
          + methodDescriptor.getFullMethodName()
          + ", authority="
          + authority
          + "}";
    }
  }
}
