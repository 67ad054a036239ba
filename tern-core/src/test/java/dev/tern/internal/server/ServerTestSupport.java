package dev.tern.internal.server;

import dev.tern.Context;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerStreamTracer;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.testing.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Methods, services, handlers and executors shared by the server runtime tests. */
final class ServerTestSupport {
  private ServerTestSupport() {}

  /** The delay of the only task pending on {@code clock}, in {@code unit}. */
  static long onlyPendingDelay(FakeClock clock, TimeUnit unit) {
    Collection<ScheduledFuture<?>> pending = clock.getPendingTasks();
    if (pending.size() != 1) {
      throw new AssertionError("expected one pending task, found " + pending);
    }
    return pending.iterator().next().getDelay(unit);
  }

  static final MethodDescriptor.Marshaller<String> STRING_MARSHALLER =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            String parsed = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            if (parsed.startsWith("unparseable")) {
              throw new IllegalArgumentException("cannot parse " + parsed);
            }
            return parsed;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  static final MethodDescriptor<String, String> UNARY = method("test.Echo/Unary", false);
  static final MethodDescriptor<String, String> BIDI = method("test.Echo/Bidi", true);

  static MethodDescriptor<String, String> method(String fullName, boolean streaming) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(
            streaming
                ? MethodDescriptor.MethodType.BIDI_STREAMING
                : MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullName)
        .setRequestMarshaller(STRING_MARSHALLER)
        .setResponseMarshaller(STRING_MARSHALLER)
        .build();
  }

  /** The service "test.Echo" with both methods served by {@code handler}. */
  static ServerServiceDefinition echoService(ServerCallHandler<String, String> handler) {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(UNARY, handler)
        .addMethod(BIDI, handler)
        .build();
  }

  /** Runs tasks only when the test says so, to observe what happens before a callback. */
  static final class QueueExecutor implements Executor {
    final Queue<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
      }
    }
  }

  /**
   * A handler that records each call it starts and answers with a {@link RecordingListener}. An
   * optional action runs inside startCall (e.g. to request messages or throw).
   */
  static final class RecordingHandler implements ServerCallHandler<String, String> {
    final List<ServerCall<String, String>> calls = new ArrayList<>();
    final List<Metadata> headers = new ArrayList<>();
    final List<Context> contexts = new ArrayList<>();
    final List<RecordingListener> listeners = new ArrayList<>();
    Consumer<ServerCall<String, String>> onStart = call -> call.request(1);
    Consumer<String> onMessage = message -> {};

    @Override
    public ServerCall.Listener<String> startCall(ServerCall<String, String> call, Metadata md) {
      calls.add(call);
      headers.add(md);
      contexts.add(Context.current());
      onStart.accept(call);
      RecordingListener listener = new RecordingListener(onMessage);
      listeners.add(listener);
      return listener;
    }

    ServerCall<String, String> lastCall() {
      return calls.get(calls.size() - 1);
    }

    RecordingListener lastListener() {
      return listeners.get(listeners.size() - 1);
    }

    Context lastContext() {
      return contexts.get(contexts.size() - 1);
    }
  }

  /** Records the events it gets as strings, plus whether the context was cancelled at each. */
  static final class RecordingListener extends ServerCall.Listener<String> {
    final List<String> events = new ArrayList<>();
    final List<Context> contexts = new ArrayList<>();
    boolean contextCancelledAtOnCancel;
    private final Consumer<String> onMessage;

    RecordingListener(Consumer<String> onMessage) {
      this.onMessage = onMessage;
    }

    @Override
    public void onMessage(String message) {
      record("message:" + message);
      onMessage.accept(message);
    }

    @Override
    public void onHalfClose() {
      record("halfClose");
    }

    @Override
    public void onCancel() {
      contextCancelledAtOnCancel = Context.current().isCancelled();
      record("cancel");
    }

    @Override
    public void onComplete() {
      record("complete");
    }

    @Override
    public void onReady() {
      record("ready");
    }

    private void record(String event) {
      events.add(event);
      contexts.add(Context.current());
    }
  }

  /**
   * Records what the server's tracers hear of admission: starts, refusals and closes. Read it once
   * the calls are done (a copy-on-write list would copy itself per call of a long run).
   */
  static final class RefusalRecorder extends ServerStreamTracer.Factory {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return new ServerStreamTracer() {
        @Override
        public void serverCallStarted(ServerCallInfo<?, ?> callInfo) {
          events.add("started");
        }

        @Override
        public void callRefused(Refusal refusal) {
          events.add("refused " + refusal);
        }

        @Override
        public void streamClosed(Status status) {
          if (!status.isOk()) {
            events.add("closed " + status.getCode());
          }
        }
      };
    }
  }

  /** Headers with a {@code grpc-timeout} of {@code value} (such as {@code "10m"}). */
  static Metadata timeoutHeader(String value) {
    Metadata headers = new Metadata();
    headers.put(GrpcHeaders.TIMEOUT, value);
    return headers;
  }
}
