package dev.tern;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Lets {@link ManagedChannelBuilder#forTarget} find a transport. Implementations are listed in
 * {@code META-INF/services/dev.tern.ManagedChannelProvider}. Thread-safe.
 */
public abstract class ManagedChannelProvider {
  /** For subclasses. */
  protected ManagedChannelProvider() {}

  /** Whether the transport can run here (e.g. its native libraries loaded). */
  public abstract boolean isAvailable();

  /** Higher wins when several providers accept a target; 5 is the norm, 0..10. */
  public abstract int priority();

  /** A builder for {@code target}, or null if this provider does not handle that form. */
  public abstract ManagedChannelBuilder<?> builderForTarget(String target);

  /** A builder for {@code host:port}, or null if this provider does not handle addresses. */
  public abstract ManagedChannelBuilder<?> builderForAddress(String host, int port);

  /**
   * A builder for {@code target} secured by {@code credentials}, a refusal saying why this
   * transport cannot honour them, or null if this provider does not handle that form of target. The
   * default accepts only {@link InsecureChannelCredentials} (calling {@link #builderForTarget} and
   * {@code usePlaintext()}); transports with TLS override it.
   */
  public NewChannelBuilderResult newChannelBuilder(String target, ChannelCredentials credentials) {
    ManagedChannelBuilder<?> builder = builderForTarget(target);
    return builder == null ? null : insecureOnly(builder, credentials);
  }

  /**
   * As {@link #newChannelBuilder} for {@code host:port}; the default calls {@link
   * #builderForAddress}.
   */
  public NewChannelBuilderResult newChannelBuilderForAddress(
      String host, int port, ChannelCredentials credentials) {
    ManagedChannelBuilder<?> builder = builderForAddress(host, port);
    return builder == null ? null : insecureOnly(builder, credentials);
  }

  private NewChannelBuilderResult insecureOnly(
      ManagedChannelBuilder<?> builder, ChannelCredentials credentials) {
    if (!(credentials instanceof InsecureChannelCredentials)) {
      return NewChannelBuilderResult.unsupported(
          getClass().getSimpleName() + " supports only InsecureChannelCredentials");
    }
    return NewChannelBuilderResult.builder(builder.usePlaintext());
  }

  /**
   * A provider's answer to {@link #newChannelBuilder}: a builder or why there is none. Immutable.
   */
  public static final class NewChannelBuilderResult {
    private final ManagedChannelBuilder<?> builder;
    private final String error;

    private NewChannelBuilderResult(ManagedChannelBuilder<?> builder, String error) {
      this.builder = builder;
      this.error = error;
    }

    /** The provider honours the credentials with {@code builder}. */
    public static NewChannelBuilderResult builder(ManagedChannelBuilder<?> builder) {
      return new NewChannelBuilderResult(Objects.requireNonNull(builder, "builder"), null);
    }

    /** The provider cannot honour the credentials; {@code reason} says why, for the user. */
    public static NewChannelBuilderResult unsupported(String reason) {
      return new NewChannelBuilderResult(null, Objects.requireNonNull(reason, "reason"));
    }

    /** The builder, or null if refused. */
    public ManagedChannelBuilder<?> getChannelBuilder() {
      return builder;
    }

    /** Why the provider refused, or null. */
    public String getError() {
      return error;
    }
  }

  /**
   * Asks the available providers, highest priority first, and returns the first builder that
   * honours {@code credentials}.
   *
   * @param what describes the request, for the error message
   * @throws IllegalStateException if none does, naming the credentials and each refusal
   */
  public static ManagedChannelBuilder<?> selectWithCredentials(
      Function<ManagedChannelProvider, NewChannelBuilderResult> ask,
      String what,
      ChannelCredentials credentials) {
    List<String> refusals = new ArrayList<>();
    for (ManagedChannelProvider provider : available()) {
      NewChannelBuilderResult result = ask.apply(provider);
      if (result == null) {
        continue;
      }
      if (result.getChannelBuilder() != null) {
        return result.getChannelBuilder();
      }
      refusals.add(provider.getClass().getName() + ": " + result.getError());
    }
    throw new IllegalStateException(
        "No channel transport accepts "
            + credentials
            + " for "
            + what
            + (refusals.isEmpty()
                ? ": add tern-netty (or another transport) to the class path"
                : " (" + String.join("; ", refusals) + ")"));
  }

  /**
   * Asks the available providers, highest priority first, and returns the first builder.
   *
   * @param what describes the request, for the error message
   * @throws IllegalStateException if none accepts
   */
  public static ManagedChannelBuilder<?> select(
      Function<ManagedChannelProvider, ManagedChannelBuilder<?>> ask, String what) {
    for (ManagedChannelProvider provider : available()) {
      ManagedChannelBuilder<?> builder = ask.apply(provider);
      if (builder != null) {
        return builder;
      }
    }
    throw new IllegalStateException(
        "No channel transport accepts "
            + what
            + ": add tern-netty (or another transport) to the class path");
  }

  private static List<ManagedChannelProvider> available() {
    List<ManagedChannelProvider> providers = new ArrayList<>();
    for (ManagedChannelProvider p :
        ServiceLoader.load(
            ManagedChannelProvider.class, ManagedChannelProvider.class.getClassLoader())) {
      if (p.isAvailable()) {
        providers.add(p);
      }
    }
    providers.sort(Comparator.comparingInt(ManagedChannelProvider::priority).reversed());
    return providers;
  }
}
