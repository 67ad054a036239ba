package dev.tern.interop.xds;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.ForwardingServerCall;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.interop.testing.SimpleResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The xDS test server's TestService interceptor: applies each call's {@code rpc-behavior} headers
 * ({@link RpcBehavior}) and names the server in what it answers: the {@code hostname} response
 * header, and {@code hostname} and {@code server_id} in every {@code SimpleResponse}. A failed call
 * carries neither (its status goes out without response headers).
 *
 * <p>Thread-safety: immutable; each call's state lives in its own {@link DelayedStart}.
 */
final class RpcBehaviorInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> RPC_BEHAVIOR =
      Metadata.Key.of("rpc-behavior", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> HOSTNAME =
      Metadata.Key.of("hostname", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);

  private final String hostname;
  private final String serverId;
  private final ScheduledExecutorService scheduler;

  RpcBehaviorInterceptor(String hostname, String serverId, ScheduledExecutorService scheduler) {
    this.hostname = hostname;
    this.serverId = serverId;
    this.scheduler = scheduler;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    Iterable<String> values = headers.getAll(RPC_BEHAVIOR);
    List<String> behaviors = new ArrayList<>();
    if (values != null) {
      values.forEach(behaviors::add);
    }
    RpcBehavior behavior;
    try {
      behavior = RpcBehavior.of(behaviors, hostname, previousAttempts(headers));
    } catch (IllegalArgumentException e) {
      call.close(Status.INVALID_ARGUMENT.withDescription(e.getMessage()), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    ServerCall<ReqT, RespT> named = new NamingCall<>(call);
    if (behavior.delayMillis() == 0 && behavior.outcome() == RpcBehavior.Outcome.SERVE) {
      return next.startCall(named, headers);
    }
    DelayedStart<ReqT, RespT> delayed = new DelayedStart<>(named, headers, next, behavior);
    delayed.schedule(scheduler);
    return delayed;
  }

  private static int previousAttempts(Metadata headers) {
    String value = headers.get(PREVIOUS_ATTEMPTS);
    if (value == null) {
      return 0;
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "grpc-previous-rpc-attempts '" + value + "' is not a whole number", e);
    }
  }

  /** Adds the server's names to the response headers and to SimpleResponses. */
  private final class NamingCall<ReqT, RespT>
      extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {
    NamingCall(ServerCall<ReqT, RespT> delegate) {
      super(delegate);
    }

    @Override
    public void sendHeaders(Metadata responseHeaders) {
      responseHeaders.put(HOSTNAME, hostname);
      super.sendHeaders(responseHeaders);
    }

    @Override
    @SuppressWarnings("unchecked") // a SimpleResponse is sent only where RespT is SimpleResponse
    public void sendMessage(RespT message) {
      if (message instanceof SimpleResponse response) {
        message = (RespT) response.toBuilder().setHostname(hostname).setServerId(serverId).build();
      }
      super.sendMessage(message);
    }
  }

  /**
   * A call whose behaviour starts after a delay: until then the transport's events are queued; then
   * the service starts and gets them in order, or the call fails, or it is left open.
   *
   * <p>Thread-safety: the transport's callbacks and the scheduler's start run under {@code this}
   * lock, so the service sees its events one at a time and in order.
   */
  private static final class DelayedStart<ReqT, RespT> extends ServerCall.Listener<ReqT> {
    private final ServerCall<ReqT, RespT> call;
    private final Metadata headers;
    private final ServerCallHandler<ReqT, RespT> next;
    private final RpcBehavior behavior;

    @GuardedBy("this")
    private final List<Consumer<ServerCall.Listener<ReqT>>> queued = new ArrayList<>();

    @GuardedBy("this")
    private ServerCall.Listener<ReqT> started;

    @GuardedBy("this")
    private boolean over;

    @GuardedBy("this")
    private ScheduledFuture<?> timer;

    DelayedStart(
        ServerCall<ReqT, RespT> call,
        Metadata headers,
        ServerCallHandler<ReqT, RespT> next,
        RpcBehavior behavior) {
      this.call = call;
      this.headers = headers;
      this.next = next;
      this.behavior = behavior;
    }

    synchronized void schedule(ScheduledExecutorService scheduler) {
      timer = scheduler.schedule(this::begin, behavior.delayMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void begin() {
      if (over) {
        return;
      }
      switch (behavior.outcome()) {
        case SERVE -> {
          started = next.startCall(call, headers);
          queued.forEach(event -> event.accept(started));
          queued.clear();
        }
        case FAIL -> {
          over = true;
          call.close(behavior.error(), new Metadata());
        }
        case KEEP_OPEN -> {
          // Left open: the client's deadline or cancellation ends it (onCancel).
        }
      }
    }

    private synchronized void deliver(Consumer<ServerCall.Listener<ReqT>> event) {
      if (started != null) {
        event.accept(started);
      } else if (!over) {
        queued.add(event);
      }
    }

    @Override
    public void onMessage(ReqT message) {
      deliver(listener -> listener.onMessage(message));
    }

    @Override
    public void onHalfClose() {
      deliver(ServerCall.Listener::onHalfClose);
    }

    @Override
    public void onReady() {
      deliver(ServerCall.Listener::onReady);
    }

    @Override
    public void onComplete() {
      deliver(ServerCall.Listener::onComplete);
    }

    @Override
    public synchronized void onCancel() {
      if (started != null) {
        started.onCancel();
        return;
      }
      over = true;
      queued.clear();
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }
}
