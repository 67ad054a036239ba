package dev.tern.stub;

import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptor;
import dev.tern.ClientInterceptors;
import dev.tern.Deadline;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The base of generated stubs: a {@link Channel} plus the {@link CallOptions} every call made
 * through the stub uses. The {@code withX} methods return a new stub of the same type with one
 * option changed; the stub they are called on is left unchanged, so a configured stub can be shared
 * and specialised per call:
 *
 * <pre>{@code
 * GreeterBlockingStub stub = GreeterGrpc.newBlockingStub(channel);
 * HelloReply reply = stub.withDeadlineAfter(2, TimeUnit.SECONDS).sayHello(request);
 * }</pre>
 *
 * <p>Immutable; thread-safe (subclasses must keep it so).
 *
 * @param <S> the concrete stub type
 */
public abstract class AbstractStub<S extends AbstractStub<S>> {
  private final Channel channel;
  private final CallOptions callOptions;

  /** A stub for {@code channel} with {@link CallOptions#DEFAULT}. */
  protected AbstractStub(Channel channel) {
    this(channel, CallOptions.DEFAULT);
  }

  /** A stub for {@code channel} whose calls use {@code callOptions}. */
  protected AbstractStub(Channel channel, CallOptions callOptions) {
    this.channel = Objects.requireNonNull(channel, "channel");
    this.callOptions = Objects.requireNonNull(callOptions, "callOptions");
  }

  /** Creates a stub of this type for {@code channel} and {@code callOptions}. */
  protected abstract S build(Channel channel, CallOptions callOptions);

  /** Creates stubs of one type; generated code passes one to the {@code newStub} factories. */
  @FunctionalInterface
  public interface StubFactory<T extends AbstractStub<T>> {
    /** Returns a stub for {@code channel} whose calls use {@code callOptions}. */
    T newStub(Channel channel, CallOptions callOptions);
  }

  /**
   * Returns the channel calls are made on (with the interceptors added by {@link
   * #withInterceptors}).
   */
  public final Channel getChannel() {
    return channel;
  }

  /** Returns the options every call of this stub uses. */
  public final CallOptions getCallOptions() {
    return callOptions;
  }

  /**
   * Returns a stub whose calls fail with {@code DEADLINE_EXCEEDED} after {@code deadline} (null for
   * none).
   */
  public final S withDeadline(Deadline deadline) {
    return build(channel, callOptions.withDeadline(deadline));
  }

  /**
   * Returns a stub whose calls have a deadline {@code duration} from now. The clock starts now, not
   * when a call starts: make a new stub for each call (or batch of calls) to be bounded.
   */
  public final S withDeadlineAfter(long duration, TimeUnit unit) {
    Objects.requireNonNull(unit, "unit");
    return build(channel, callOptions.withDeadlineAfter(duration, unit));
  }

  /** Like {@link #withDeadlineAfter(long, TimeUnit)} with a {@link Duration}. */
  public final S withDeadlineAfter(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    return withDeadlineAfter(saturatedNanos(duration), TimeUnit.NANOSECONDS);
  }

  /** Returns a stub whose calls run their callbacks on {@code executor} (null: the channel's). */
  public final S withExecutor(Executor executor) {
    return build(channel, callOptions.withExecutor(executor));
  }

  /**
   * Returns a stub whose calls compress requests with the named compressor, e.g. {@code "gzip"}
   * (null for none). The name must be registered with the channel.
   */
  public final S withCompression(String compressorName) {
    return build(channel, callOptions.withCompression(compressorName));
  }

  /** Returns a stub whose calls pass through {@code interceptors}, the last one first. */
  public final S withInterceptors(ClientInterceptor... interceptors) {
    Objects.requireNonNull(interceptors, "interceptors");
    return build(ClientInterceptors.intercept(channel, interceptors), callOptions);
  }

  /** Returns a stub whose calls carry {@code credentials} (null for none). */
  public final S withCallCredentials(CallCredentials credentials) {
    return build(channel, callOptions.withCallCredentials(credentials));
  }

  /**
   * Returns a stub whose calls wait for the channel to be ready (until their deadline) instead of
   * failing at once with {@code UNAVAILABLE} when it is in transient failure.
   */
  public final S withWaitForReady() {
    return build(channel, callOptions.withWaitForReady());
  }

  /**
   * Returns a stub whose calls accept response messages of up to {@code maxSize} bytes.
   *
   * @throws IllegalArgumentException if {@code maxSize} is negative
   */
  public final S withMaxInboundMessageSize(int maxSize) {
    return build(channel, callOptions.withMaxInboundMessageSize(maxSize));
  }

  /**
   * Returns a stub whose calls send request messages of up to {@code maxSize} bytes.
   *
   * @throws IllegalArgumentException if {@code maxSize} is negative
   */
  public final S withMaxOutboundMessageSize(int maxSize) {
    return build(channel, callOptions.withMaxOutboundMessageSize(maxSize));
  }

  /** Returns a stub whose calls carry custom option {@code key} set to {@code value}. */
  public final <T> S withOption(CallOptions.Key<T> key, T value) {
    return build(channel, callOptions.withOption(key, value));
  }

  private static long saturatedNanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + "{channel="
        + channel
        + ", callOptions="
        + callOptions
        + "}";
  }
}
