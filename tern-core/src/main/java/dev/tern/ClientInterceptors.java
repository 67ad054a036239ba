package dev.tern;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** Wraps a {@link Channel} so that its calls go through {@link ClientInterceptor}s. */
public final class ClientInterceptors {
  private ClientInterceptors() {}

  /**
   * A channel whose calls pass through {@code interceptors}; the LAST one runs first (the order in
   * which they wrap the channel).
   */
  public static Channel intercept(Channel channel, ClientInterceptor... interceptors) {
    return intercept(channel, Arrays.asList(interceptors));
  }

  /** See {@link #intercept(Channel, ClientInterceptor...)}. */
  public static Channel intercept(Channel channel, List<? extends ClientInterceptor> interceptors) {
    Objects.requireNonNull(channel, "channel");
    Channel result = channel;
    for (ClientInterceptor interceptor : interceptors) {
      result = new InterceptedChannel(result, Objects.requireNonNull(interceptor, "interceptor"));
    }
    return result;
  }

  /** A channel whose calls pass through {@code interceptors}; the FIRST one runs first. */
  public static Channel interceptForward(Channel channel, ClientInterceptor... interceptors) {
    ClientInterceptor[] reversed = new ClientInterceptor[interceptors.length];
    for (int i = 0; i < interceptors.length; i++) {
      reversed[i] = interceptors[interceptors.length - 1 - i];
    }
    return intercept(channel, reversed);
  }

  /** Immutable; thread-safe if the interceptor is. */
  private static final class InterceptedChannel extends Channel {
    private final Channel next;
    private final ClientInterceptor interceptor;

    InterceptedChannel(Channel next, ClientInterceptor interceptor) {
      this.next = next;
      this.interceptor = interceptor;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
      try {
        return interceptor.interceptCall(method, callOptions, next);
      } catch (RuntimeException | Error e) {
        return new FailedClientCall<>(
            Status.fromThrowable(e)
                .augmentDescription("client interceptor " + interceptor + " threw")
                .withCause(e));
      }
    }

    @Override
    public String authority() {
      return next.authority();
    }
  }

  /** A call that fails with a fixed status as soon as it starts. Not thread-safe, like calls. */
  static final class FailedClientCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final Status status;

    FailedClientCall(Status status) {
      this.status = status;
    }

    @Override
    public void start(Listener<RespT> responseListener, Metadata headers) {
      responseListener.onClose(status, new Metadata());
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(ReqT message) {}
  }
}
