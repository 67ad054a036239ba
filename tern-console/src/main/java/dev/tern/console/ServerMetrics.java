package dev.tern.console;

import dev.tern.Metadata;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one server's tracer hooks report, counted for the console's State view: per method, the
 * calls started, how they ended (by status code), messages and wire bytes each way and the time
 * calls took; for the whole server, the calls refused at admission by reason ({@link
 * ServerStreamTracer.Refusal}, what OpenTelemetry's {@code tern.server.call.refused} counts) and
 * the calls that ended before reaching a handler (an unknown method, a refusal, a bad request), by
 * status code.
 *
 * <p>Methods are counted once a call of theirs starts, so only methods the server has: a client
 * naming methods at random grows nothing.
 *
 * <p>Thread-safe: counters are {@link LongAdder}s, methods a {@link ConcurrentHashMap}; {@link
 * #toJson} reads them while calls go on, so its numbers may be a few calls apart from each other.
 */
final class ServerMetrics extends ServerStreamTracer.Factory {
  private static final Status.Code[] CODES = Status.Code.values();
  private static final ServerStreamTracer.Refusal[] REFUSALS = ServerStreamTracer.Refusal.values();

  private final Map<String, MethodCounts> methods = new ConcurrentHashMap<>();
  private final LongAdder[] refused = adders(REFUSALS.length);
  private final LongAdder[] endedBeforeHandler = adders(CODES.length);

  @Override
  public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
    return new Tracer();
  }

  /** The counts as JSON, for the page (see docs/console.md, "State"). */
  String toJson() {
    StringBuilder out = new StringBuilder("{\"methods\":[");
    List<String> names = new ArrayList<>(methods.keySet());
    names.sort(null);
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      MethodCounts counts = methods.get(names.get(i));
      out.append("{\"method\":");
      ExamplesJson.string(out, names.get(i));
      out.append(",\"started\":").append(counts.started.sum());
      out.append(",\"ended\":");
      counted(out, CODES, counts.ended);
      out.append(",\"messagesReceived\":").append(counts.messagesReceived.sum());
      out.append(",\"messagesSent\":").append(counts.messagesSent.sum());
      out.append(",\"bytesReceived\":").append(counts.bytesReceived.sum());
      out.append(",\"bytesSent\":").append(counts.bytesSent.sum());
      out.append(",\"nanos\":").append(counts.nanos.sum()).append('}');
    }
    out.append("],\"refused\":");
    counted(out, REFUSALS, refused);
    out.append(",\"endedBeforeHandler\":");
    counted(out, CODES, endedBeforeHandler);
    return out.append('}').toString();
  }

  /** {@code {"NAME": n, ...}} for the names counted at least once ({@code counts} by ordinal). */
  private static void counted(StringBuilder out, Enum<?>[] names, LongAdder[] counts) {
    out.append('{');
    boolean first = true;
    for (Enum<?> name : names) {
      long n = counts[name.ordinal()].sum();
      if (n > 0) {
        out.append(first ? "" : ",").append('"').append(name.name()).append("\":").append(n);
        first = false;
      }
    }
    out.append('}');
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] adders = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      adders[i] = new LongAdder();
    }
    return adders;
  }

  /** One method's counters. Thread-safe. */
  private static final class MethodCounts {
    final LongAdder started = new LongAdder();
    final LongAdder[] ended = adders(CODES.length);
    final LongAdder messagesReceived = new LongAdder();
    final LongAdder messagesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder bytesSent = new LongAdder();

    /** The time of the calls that ended, from their start to their close. */
    final LongAdder nanos = new LongAdder();
  }

  /**
   * One stream. The runtime calls a stream's tracer from its transport's thread and its call's
   * executor, one event at a time but not always from the same thread: the method is volatile.
   */
  private final class Tracer extends ServerStreamTracer {
    private volatile MethodCounts method;
    private volatile long startNanos;

    @Override
    public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
      MethodCounts counts =
          methods.computeIfAbsent(
              callInfo.getMethodDescriptor().getFullMethodName(), name -> new MethodCounts());
      counts.started.increment();
      startNanos = System.nanoTime();
      method = counts;
    }

    @Override
    public void callRefused(Refusal refusal) {
      refused[refusal.ordinal()].increment();
    }

    @Override
    public void inboundMessage(int seqNo) {
      MethodCounts counts = method;
      if (counts != null) {
        counts.messagesReceived.increment();
      }
    }

    @Override
    public void outboundMessage(int seqNo) {
      MethodCounts counts = method;
      if (counts != null) {
        counts.messagesSent.increment();
      }
    }

    @Override
    public void inboundWireSize(long bytes) {
      MethodCounts counts = method;
      if (counts != null) {
        counts.bytesReceived.add(bytes);
      }
    }

    @Override
    public void outboundWireSize(long bytes) {
      MethodCounts counts = method;
      if (counts != null) {
        counts.bytesSent.add(bytes);
      }
    }

    @Override
    public void streamClosed(Status status) {
      MethodCounts counts = method;
      int code = status.getCode().ordinal();
      if (counts == null) {
        endedBeforeHandler[code].increment();
      } else {
        counts.ended[code].increment();
        counts.nanos.add(System.nanoTime() - startNanos);
      }
    }
  }
}
