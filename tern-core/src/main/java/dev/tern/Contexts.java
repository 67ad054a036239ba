package dev.tern;

import java.util.Objects;
import java.util.concurrent.TimeoutException;

/** Helpers that connect {@link Context} with server calls. */
public final class Contexts {
  private Contexts() {}

  /**
   * Starts {@code next} with {@code context} attached, and attaches it again around every listener
   * callback, so that values an interceptor put in the context are visible to the handler.
   */
  public static <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      Context context,
      ServerCall<ReqT, RespT> call,
      Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    Objects.requireNonNull(context, "context");
    Context previous = context.attach();
    try {
      return new ContextualizedListener<>(next.startCall(call, headers), context);
    } finally {
      context.detach(previous);
    }
  }

  /**
   * The status matching a cancelled context: CANCELLED, or DEADLINE_EXCEEDED when it timed out,
   * carrying the cause. Null if the context is not cancelled.
   */
  public static Status statusFromCancelled(Context context) {
    Objects.requireNonNull(context, "context");
    if (!context.isCancelled()) {
      return null;
    }
    Throwable cause = context.cancellationCause();
    if (cause == null) {
      return Status.CANCELLED.withDescription("Context was cancelled without error");
    }
    if (cause instanceof TimeoutException) {
      return Status.DEADLINE_EXCEEDED.withDescription(cause.getMessage()).withCause(cause);
    }
    Status status = Status.fromThrowable(cause);
    if (status.getCode() == Status.Code.UNKNOWN && status.getCause() == cause) {
      return Status.CANCELLED.withDescription("Context cancelled").withCause(cause);
    }
    return status.withCause(cause);
  }

  /** Attaches the context around each callback. Callbacks never overlap, like any listener. */
  private static final class ContextualizedListener<ReqT>
      extends ForwardingServerCallListener.SimpleForwardingServerCallListener<ReqT> {
    private final Context context;

    ContextualizedListener(ServerCall.Listener<ReqT> delegate, Context context) {
      super(delegate);
      this.context = context;
    }

    @Override
    public void onMessage(ReqT message) {
      Context previous = context.attach();
      try {
        super.onMessage(message);
      } finally {
        context.detach(previous);
      }
    }

    @Override
    public void onHalfClose() {
      Context previous = context.attach();
      try {
        super.onHalfClose();
      } finally {
        context.detach(previous);
      }
    }

    @Override
    public void onCancel() {
      Context previous = context.attach();
      try {
        super.onCancel();
      } finally {
        context.detach(previous);
      }
    }

    @Override
    public void onComplete() {
      Context previous = context.attach();
      try {
        super.onComplete();
      } finally {
        context.detach(previous);
      }
    }

    @Override
    public void onReady() {
      Context previous = context.attach();
      try {
        super.onReady();
      } finally {
        context.detach(previous);
      }
    }
  }
}
