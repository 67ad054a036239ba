package dev.tern.stub;

import dev.tern.CallOptions;
import dev.tern.Channel;

/**
 * The base of generated future (CompletableFuture-based) stubs. Its calls carry {@link
 * ClientCalls#STUB_TYPE_OPTION} {@link ClientCalls.StubType#FUTURE} when created through {@link
 * #newStub}.
 *
 * <p>Immutable; thread-safe.
 *
 * @param <S> the concrete stub type
 */
public abstract class AbstractFutureStub<S extends AbstractFutureStub<S>> extends AbstractStub<S> {

  /** A stub for {@code channel} whose calls use {@code callOptions}. */
  protected AbstractFutureStub(Channel channel, CallOptions callOptions) {
    super(channel, callOptions);
  }

  /** Returns a new stub from {@code factory} for {@code channel} with default call options. */
  public static <T extends AbstractStub<T>> T newStub(
      AbstractStub.StubFactory<T> factory, Channel channel) {
    return newStub(factory, channel, CallOptions.DEFAULT);
  }

  /** Returns a new stub from {@code factory} for {@code channel} and {@code callOptions}. */
  public static <T extends AbstractStub<T>> T newStub(
      AbstractStub.StubFactory<T> factory, Channel channel, CallOptions callOptions) {
    java.util.Objects.requireNonNull(factory, "factory");
    java.util.Objects.requireNonNull(callOptions, "callOptions");
    return factory.newStub(
        channel, callOptions.withOption(ClientCalls.STUB_TYPE_OPTION, ClientCalls.StubType.FUTURE));
  }
}
