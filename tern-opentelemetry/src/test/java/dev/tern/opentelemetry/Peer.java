package dev.tern.opentelemetry;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the side-by-side tests run on both Tern and grpc-java: one service ({@code sbs.Svc}) whose
 * methods behave the same in both, a server and a client of either implementation, and an SDK per
 * process recording to memory.
 */
final class Peer {
  static final String SERVICE = "sbs.Svc";

  /** Answers {@link #UNARY_RESPONSE_SIZE} bytes of 'r'. */
  static final String UNARY = "Unary";

  /** Like {@link #UNARY}; the client compresses its request with gzip. */
  static final String GZIP = "Gzip";

  /** Like {@link #UNARY}; the server compresses its response with gzip. */
  static final String GZIP_REPLY = "GzipReply";

  /** Fails INVALID_ARGUMENT "bad thing". */
  static final String FAIL = "Fail";

  /** Server streaming: answers 10, 20 and 30 bytes. */
  static final String STREAM = "Stream";

  /** Not served. */
  static final String MISSING = "Missing";

  /** The size of the request to {@link #MISSING}. */
  static final int MISSING_REQUEST_SIZE = 7;

  static final int UNARY_RESPONSE_SIZE = 2000;
  static final List<Integer> STREAM_RESPONSE_SIZES = List.of(10, 20, 30);

  private Peer() {}

  static String fullName(String method) {
    return SERVICE + "/" + method;
  }

  static byte[] filled(int size, char c) {
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, (byte) c);
    return bytes;
  }

  /** A server of either implementation, serving {@code sbs.Svc} with OpenTelemetry on. */
  interface Server extends AutoCloseable {
    int port();

    /**
     * Waits until {@code count} streams have closed (at most 10 s): the server records a call's
     * metrics and ends its span when the stream closes, which may be after the client returned.
     */
    void awaitClosedStreams(int count) throws InterruptedException;

    /** The trace id that was current in the handler, by method name ("0…0" for none). */
    Map<String, String> handlerTraceIds();

    /** The tracing headers the server received (traceparent, grpc-trace-bin), by method name. */
    Map<String, String> tracingHeaders();

    @Override
    void close();
  }

  /** A channel of either implementation, with OpenTelemetry on, to a {@link Server}. */
  interface Client extends AutoCloseable {
    /** Calls a unary method; returns the status code's name ("OK", "INVALID_ARGUMENT", ...). */
    String unary(String method, byte[] request, boolean gzip);

    /** Calls a server-streaming method; returns the sizes of the responses. */
    List<Integer> serverStream(String method, byte[] request);

    @Override
    void close();
  }

  /** How many calls {@link #makeCalls} makes (each a server stream). */
  static final int CALLS = 6;

  /** The calls each side makes, and what they returned. */
  static List<String> makeCalls(Peer.Client client) {
    List<String> results = new ArrayList<>();
    results.add("Unary " + client.unary(Peer.UNARY, Peer.filled(1000, 'x'), false));
    results.add("Fail " + client.unary(Peer.FAIL, Peer.filled(4, 'f'), false));
    results.add("Stream " + client.serverStream(Peer.STREAM, Peer.filled(5, 's')));
    results.add(
        "Missing " + client.unary(Peer.MISSING, Peer.filled(MISSING_REQUEST_SIZE, 'm'), false));
    results.add("Gzip " + client.unary(Peer.GZIP, Peer.filled(1000, 'q'), true));
    results.add("GzipReply " + client.unary(Peer.GZIP_REPLY, Peer.filled(6, 'g'), false));
    return results;
  }

  /**
   * Fails, listing the lines only one side has and then all of grpc-java's, unless both sides
   * described {@code what} with the same lines (in any order).
   */
  static void assertSameLines(String what, List<String> grpc, List<String> tern) {
    List<String> onlyGrpc = new ArrayList<>(grpc);
    onlyGrpc.removeAll(tern);
    List<String> onlyTern = new ArrayList<>(tern);
    onlyTern.removeAll(grpc);
    if (onlyGrpc.isEmpty() && onlyTern.isEmpty()) {
      return;
    }
    throw new AssertionError(
        "Tern's "
            + what
            + " differ from grpc-java's for the same calls"
            + "\n--- only grpc-java:\n  "
            + String.join("\n  ", onlyGrpc)
            + "\n+++ only Tern:\n  "
            + String.join("\n  ", onlyTern)
            + "\n=== all of grpc-java's:\n  "
            + String.join("\n  ", grpc));
  }

  /** Waits for a shut-down server or channel to terminate; false if it did not in 5 s. */
  interface Termination {
    boolean await(long time, TimeUnit unit) throws InterruptedException;
  }

  static boolean terminated(Termination termination) {
    try {
      return termination.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Counts closed server streams and lets a test wait for a number of them. Thread-safe. */
  static final class ClosedStreams {
    private int closed;

    synchronized void closed() {
      closed++;
      notifyAll();
    }

    synchronized void await(int count) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (closed < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("only " + closed + " of " + count + " server streams closed");
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** One process's SDK: metrics to memory, ended spans to {@link #spans}. */
  static final class Sdk implements AutoCloseable {
    final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    final OtelFixture.EndedSpans spans = new OtelFixture.EndedSpans();
    final OpenTelemetrySdk sdk;

    Sdk() {
      this(W3CTraceContextPropagator.getInstance());
    }

    Sdk(TextMapPropagator propagator) {
      sdk =
          OpenTelemetrySdk.builder()
              .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
              .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(spans).build())
              .setPropagators(ContextPropagators.create(propagator))
              .build();
    }

    @Override
    public void close() {
      sdk.close();
    }
  }

  /** Remembers per method what a server saw. Thread-safe. */
  static final class Seen {
    final Map<String, String> traceIds = new ConcurrentHashMap<>();
    final Map<String, String> headers = new ConcurrentHashMap<>();

    static String methodOf(String fullMethodName) {
      return fullMethodName.substring(fullMethodName.indexOf('/') + 1);
    }
  }
}
