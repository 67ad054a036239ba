package dev.tern.internal.server;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.CompressorRegistry;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.channelz.CallCounter;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ServerStream;
import java.io.InputStream;
import java.util.Objects;

/**
 * The {@link ServerCall} handed to handlers: checks the order of the application's calls and turns
 * them into stream operations.
 *
 * <p>Thread-safety: like any {@code ServerCall}, the application calls it from one thread at a time
 * (not necessarily the same one). The runtime marks it cancelled from the transport thread; {@code
 * cancelled} and {@code closeCalled} are volatile so that every thread sees those transitions.
 * {@code requestedAhead} and {@code readAhead} are set by the runtime before the call is handed to
 * the application's executor (which orders it before the application's reads). The adaptive limit's
 * timestamps are ordered as their fields say. Other fields are touched only by the application's
 * thread of the moment.
 */
final class ServerCallImpl<ReqT, RespT> extends ServerCall<ReqT, RespT> {
  private static final String IDENTITY = "identity";

  private final ServerStream stream;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CompressorRegistry compressorRegistry;

  /** What the server can decompress, sent back in {@code grpc-accept-encoding}; may be empty. */
  private final String serverAcceptEncoding;

  /** The client's {@code grpc-accept-encoding}, or null if it sent none. */
  private final String clientAcceptEncoding;

  /** Chosen with {@link #setCompression}; null means no compression. */
  private Compressor compressor;

  /**
   * Messages the runtime requested for the handler (see {@link RequestsAtStart}) not yet absorbed.
   */
  private int requestedAhead;

  /** Takes the handler's requests for a streaming request side; null for one request message. */
  private ReadAhead readAhead;

  private boolean sendHeadersCalled;
  private volatile boolean closeCalled;
  private volatile boolean cancelled;

  /** Whether the application closed the call OK (what channelz counts as succeeded). */
  private volatile boolean closedOk;

  private final CallCounter serverCalls;

  /** The server's bound on calls in progress, whose slot this call holds; null if unbounded. */
  private final ConcurrentCallLimit callLimit;

  /** The adaptive limit whose slot this call holds, and learns from its latency; null if none. */
  private final AdaptiveConcurrencyLimit adaptiveLimit;

  /** The call's time left when it arrived, in nanoseconds; negative without a deadline. */
  private final long timeoutNanos;

  /**
   * When the request was fully received (its half-close), by the adaptive limit's clock; {@link
   * #NOT_RECEIVED} before, or without {@link #adaptiveLimit}. Written and read only by the
   * transport's stream events ({@link #requestReceived}, {@link #streamClosed}).
   */
  private long receivedNanos = NOT_RECEIVED;

  /**
   * The adaptive limit's calls in progress when the request was fully received: what this call
   * queued behind. Written and read as {@link #receivedNanos}.
   */
  private int receivedInProgress;

  /**
   * When the application closed the call, by the adaptive limit's clock; written before {@code
   * closeCalled} and {@code closedOk}, so whoever reads those true sees it.
   */
  private long closedNanos;

  private static final long NOT_RECEIVED = Long.MIN_VALUE;

  /**
   * The {@code grpc-accept-encoding} entry last built, merged into the response headers of every
   * call that advertises the same encodings (a server advertises one set), so the value is not
   * encoded again per call. Racy by design: any thread may replace it, and a reader sees some
   * complete holder; the shared entry is only ever read.
   */
  private static volatile AcceptEncodingEntry lastAcceptEncoding =
      new AcceptEncodingEntry("", null);

  /** An advertised-encodings value and the one-entry metadata made of it. Immutable. */
  private record AcceptEncodingEntry(String value, Metadata entry) {}

  private static Metadata acceptEncodingEntry(String value) {
    AcceptEncodingEntry last = lastAcceptEncoding;
    if (!last.value().equals(value)) {
      Metadata entry = new Metadata();
      entry.put(GrpcHeaders.MESSAGE_ACCEPT_ENCODING, value);
      last = new AcceptEncodingEntry(value, entry);
      lastAcceptEncoding = last;
    }
    return last.entry();
  }

  ServerCallImpl(
      ServerStream stream,
      MethodDescriptor<ReqT, RespT> method,
      CompressorRegistry compressorRegistry,
      String serverAcceptEncoding,
      String clientAcceptEncoding,
      CallCounter serverCalls,
      ConcurrentCallLimit callLimit,
      AdaptiveConcurrencyLimit adaptiveLimit,
      long timeoutNanos) {
    this.stream = stream;
    this.timeoutNanos = timeoutNanos;
    this.serverCalls = serverCalls;
    this.callLimit = callLimit;
    this.adaptiveLimit = adaptiveLimit;
    this.method = method;
    this.compressorRegistry = compressorRegistry;
    this.serverAcceptEncoding = serverAcceptEncoding;
    this.clientAcceptEncoding = clientAcceptEncoding;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if {@code numMessages} is negative
   */
  @Override
  public void request(int numMessages) {
    if (numMessages < 0) {
      throw new IllegalArgumentException("numMessages must be >= 0: " + numMessages);
    }
    int ahead = Math.min(numMessages, requestedAhead);
    requestedAhead -= ahead;
    int rest = numMessages - ahead;
    if (rest > 0 && !closeCalled && !cancelled) {
      if (readAhead != null) {
        readAhead.request(rest);
      } else {
        stream.request(rest);
      }
    }
  }

  /**
   * Records that the runtime will request {@code count} messages from the stream on the handler's
   * behalf, so that as many of the handler's own requests are absorbed. Called by the runtime
   * before the call is started on the application's executor.
   */
  void expectRequestsAhead(int count) {
    requestedAhead = count;
  }

  /**
   * Sends the handler's requests through {@code readAhead} instead of straight to the stream.
   * Called by the runtime before the call is started on the application's executor.
   */
  void readAhead(ReadAhead readAhead) {
    this.readAhead = readAhead;
  }

  /**
   * {@inheritDoc} Reserved keys ({@code grpc-status}, {@code grpc-message}, {@code grpc-encoding},
   * {@code grpc-accept-encoding}) are removed from {@code headers}; the runtime sets the last two
   * itself. {@code grpc-encoding} is sent only if a compressor was chosen with {@link
   * #setCompression} and the client listed it in its {@code grpc-accept-encoding}.
   *
   * @throws IllegalStateException if headers were already sent or the call is closed
   */
  @Override
  public void sendHeaders(Metadata headers) {
    Objects.requireNonNull(headers, "headers");
    if (sendHeadersCalled) {
      throw new IllegalStateException("sendHeaders has already been called");
    }
    if (closeCalled) {
      throw new IllegalStateException("call is closed");
    }
    sendHeadersCalled = true;
    if (cancelled) {
      return;
    }
    stripReserved(headers);
    if (compressor != null && clientAccepts(compressor.getMessageEncoding())) {
      stream.setCompressor(compressor);
      headers.put(GrpcHeaders.MESSAGE_ENCODING, compressor.getMessageEncoding());
    }
    if (!serverAcceptEncoding.isEmpty()) {
      headers.merge(acceptEncodingEntry(serverAcceptEncoding));
    }
    // A unary response is flushed with its message; a stream of responses should not wait for it.
    stream.writeHeaders(headers, !method.getType().serverSendsOneMessage());
  }

  /**
   * {@inheritDoc} Sends empty headers first if {@link #sendHeaders} was not called. Ignored if the
   * call was cancelled. A method with one response (unary, client-streaming) does not flush it
   * here: it leaves with the trailers when the call closes.
   *
   * @throws IllegalStateException if the call is closed
   */
  @Override
  public void sendMessage(RespT message) {
    if (closeCalled) {
      throw new IllegalStateException("call is closed");
    }
    if (cancelled) {
      return;
    }
    if (!sendHeadersCalled) {
      sendHeaders(new Metadata());
    }
    InputStream serialized;
    try {
      serialized = method.streamResponse(message);
    } catch (RuntimeException e) {
      close(
          Status.INTERNAL.withDescription("Failed to serialize response").withCause(e),
          new Metadata());
      throw e;
    }
    stream.writeMessage(serialized);
    if (!method.getType().serverSendsOneMessage()) {
      // A single response goes out with the trailers, in one write, when the call closes.
      stream.flush();
    }
  }

  @Override
  public boolean isReady() {
    return !closeCalled && !cancelled && stream.isReady();
  }

  /**
   * {@inheritDoc} Reserved keys ({@code grpc-status}, {@code grpc-message}, {@code grpc-encoding},
   * {@code grpc-accept-encoding}) are removed from {@code trailers}: the status is what is sent. A
   * close after the call was cancelled sends nothing.
   *
   * @throws IllegalStateException if the call was already closed
   */
  @Override
  public void close(Status status, Metadata trailers) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trailers, "trailers");
    if (closeCalled) {
      throw new IllegalStateException("call already closed");
    }
    noteClose();
    closeCalled = true;
    if (cancelled) {
      return;
    }
    closedOk = status.isOk();
    stripReserved(trailers);
    stream.close(status, trailers);
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    stream.setMessageCompression(enabled);
  }

  /**
   * {@inheritDoc} {@code "identity"} turns compression off.
   *
   * @throws IllegalStateException if headers were already sent
   */
  @Override
  public void setCompression(String compressorName) {
    Objects.requireNonNull(compressorName, "compressorName");
    if (sendHeadersCalled) {
      throw new IllegalStateException("setCompression must be called before sendHeaders");
    }
    if (IDENTITY.equals(compressorName)) {
      compressor = null;
      return;
    }
    Compressor found = compressorRegistry.lookupCompressor(compressorName);
    if (found == null) {
      throw new IllegalArgumentException("setCompression: no compressor named " + compressorName);
    }
    compressor = found;
  }

  @Override
  public Attributes getAttributes() {
    Attributes attributes = stream.getAttributes();
    return attributes != null ? attributes : Attributes.EMPTY;
  }

  @Override
  public String getAuthority() {
    return stream.getAuthority();
  }

  @Override
  public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return method;
  }

  /** The stream ended abnormally (runtime-only): later sends are ignored. */
  void markCancelled() {
    cancelled = true;
  }

  /**
   * Closes the call with {@code status} unless the application already did or it was cancelled;
   * used when a handler fails, so it never throws.
   */
  void closeIfOpen(Status status, Metadata trailers) {
    if (closeCalled || cancelled) {
      return;
    }
    noteClose();
    closeCalled = true;
    closedOk = status.isOk();
    stripReserved(trailers);
    stream.close(status, trailers);
  }

  /**
   * Notes when the application closed the call: before {@code closeCalled}, see {@link
   * #closedNanos}.
   */
  private void noteClose() {
    if (adaptiveLimit != null) {
      closedNanos = adaptiveLimit.now();
    }
  }

  /**
   * The client's request is complete (its half-close reached the call, on the transport's thread):
   * from here on the call's time is the server's own, what the adaptive limit learns from.
   */
  void requestReceived() {
    if (adaptiveLimit != null) {
      receivedNanos = adaptiveLimit.now();
      receivedInProgress = adaptiveLimit.inProgress();
    }
  }

  /**
   * The stream ended with {@code status} (OK once the trailers went out): the call counts as
   * succeeded if the application also closed it OK, and gives back its slot of the server's limits
   * on calls in progress. The adaptive limit learns the server's own time of a call: from its
   * request's end to its handler's OK close (not the client's upload, nor the sending of the
   * response to a slow reader), or to its deadline if that passed first, or to the client's cancel
   * if the client gave up first (a lower bound of what it would have taken; both count as late:
   * clients cancel at their deadlines, so a server whose clients give up before it answers is
   * failing them). Other calls end early for reasons of their own and teach it nothing.
   */
  void streamClosed(Status status) {
    boolean succeeded = status.isOk() && closedOk;
    serverCalls.callEnded(succeeded);
    if (callLimit != null) {
      callLimit.release();
    }
    if (adaptiveLimit != null) {
      long received = receivedNanos;
      if (received == NOT_RECEIVED) {
        adaptiveLimit.release();
      } else if (closedOk) {
        adaptiveLimit.release(closedNanos - received, timeoutNanos, receivedInProgress);
      } else if (status.getCode() == Status.Code.DEADLINE_EXCEEDED
          || status.getCode() == Status.Code.CANCELLED) {
        adaptiveLimit.releaseLate(adaptiveLimit.now() - received);
      } else {
        adaptiveLimit.release();
      }
    }
  }

  /** The server refused the call before its handler ran: its tracers, if any, hear why. */
  void refused(ServerStreamTracer.Refusal refusal) {
    if (stream instanceof TracedServerStream traced) {
      traced.callRefused(refusal);
    }
  }

  /** Cancels the stream from any thread (deadline timer); the transport makes it idempotent. */
  void cancelStream(Status status) {
    stream.cancel(status);
  }

  /** The application is done with the cancelled call: tells the transport. */
  void cancelledCallFinished() {
    stream.cancelledCallFinished();
  }

  private static void stripReserved(Metadata metadata) {
    metadata.discardAll(GrpcHeaders.STATUS);
    metadata.discardAll(GrpcHeaders.MESSAGE);
    metadata.discardAll(GrpcHeaders.MESSAGE_ENCODING);
    metadata.discardAll(GrpcHeaders.MESSAGE_ACCEPT_ENCODING);
  }

  /** Whether the client's {@code grpc-accept-encoding} lists {@code encoding}; no allocation. */
  private boolean clientAccepts(String encoding) {
    return acceptsEncoding(clientAcceptEncoding, encoding);
  }

  /**
   * Whether a comma-separated {@code header} (optional whitespace around items, as HTTP allows)
   * contains {@code encoding}.
   */
  static boolean acceptsEncoding(String header, String encoding) {
    if (header == null) {
      return false;
    }
    int length = header.length();
    int start = 0;
    while (start <= length) {
      int end = header.indexOf(',', start);
      if (end < 0) {
        end = length;
      }
      int from = start;
      int to = end;
      while (from < to && isWhitespace(header.charAt(from))) {
        from++;
      }
      while (to > from && isWhitespace(header.charAt(to - 1))) {
        to--;
      }
      if (to - from == encoding.length() && header.regionMatches(from, encoding, 0, to - from)) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t';
  }
}
