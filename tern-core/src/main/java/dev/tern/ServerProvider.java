package dev.tern;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Lets {@link ServerBuilder#forPort} find a server transport. Implementations are listed in {@code
 * META-INF/services/dev.tern.ServerProvider}. Thread-safe.
 */
public abstract class ServerProvider {
  /** For subclasses. */
  protected ServerProvider() {}

  /** Whether the transport can run here. */
  public abstract boolean isAvailable();

  /** Higher wins; 5 is the norm, 0..10. */
  public abstract int priority();

  /** A builder for a server on {@code port}, or null if this transport does not use ports. */
  public abstract ServerBuilder<?> builderForPort(int port);

  /**
   * A builder for a server on {@code port} secured by {@code credentials}, a refusal saying why
   * this transport cannot honour them, or null if this transport does not use ports. The default
   * accepts only {@link InsecureServerCredentials} (calling {@link #builderForPort}); transports
   * with TLS override it.
   */
  public NewServerBuilderResult newServerBuilderForPort(int port, ServerCredentials credentials) {
    if (!(credentials instanceof InsecureServerCredentials)) {
      return NewServerBuilderResult.unsupported(
          getClass().getSimpleName() + " supports only InsecureServerCredentials");
    }
    ServerBuilder<?> builder = builderForPort(port);
    return builder == null ? null : NewServerBuilderResult.builder(builder);
  }

  /**
   * A builder for a server bound to {@code address} alone (say an {@code InetSocketAddress} of one
   * local IP) secured by {@code credentials}, a refusal saying why this transport cannot honour
   * them, or null if this transport does not bind such addresses. The default: null; transports
   * that bind socket addresses override it.
   */
  public NewServerBuilderResult newServerBuilderForAddress(
      SocketAddress address, ServerCredentials credentials) {
    return null;
  }

  /**
   * A provider's answer to {@link #newServerBuilderForPort} or {@link #newServerBuilderForAddress}:
   * a builder or why there is none. Immutable.
   */
  public static final class NewServerBuilderResult {
    private final ServerBuilder<?> builder;
    private final String error;

    private NewServerBuilderResult(ServerBuilder<?> builder, String error) {
      this.builder = builder;
      this.error = error;
    }

    /** The provider serves the credentials with {@code builder}. */
    public static NewServerBuilderResult builder(ServerBuilder<?> builder) {
      return new NewServerBuilderResult(Objects.requireNonNull(builder, "builder"), null);
    }

    /** The provider cannot honour the credentials; {@code reason} says why, for the user. */
    public static NewServerBuilderResult unsupported(String reason) {
      return new NewServerBuilderResult(null, Objects.requireNonNull(reason, "reason"));
    }

    /** The builder, or null if refused. */
    public ServerBuilder<?> getServerBuilder() {
      return builder;
    }

    /** Why the provider refused, or null. */
    public String getError() {
      return error;
    }
  }

  /**
   * Returns the builder of the highest-priority available provider that serves {@code credentials}
   * on {@code port}.
   *
   * @throws IllegalStateException if none does, naming the credentials and each refusal
   */
  public static ServerBuilder<?> select(int port, ServerCredentials credentials) {
    Objects.requireNonNull(credentials, "credentials");
    return select(
        provider -> provider.newServerBuilderForPort(port, credentials),
        credentials,
        "port " + port);
  }

  /**
   * Returns the builder of the highest-priority available provider that serves {@code credentials}
   * bound to {@code address}.
   *
   * @throws IllegalStateException if none does, naming the credentials, the address and each
   *     refusal
   */
  public static ServerBuilder<?> select(SocketAddress address, ServerCredentials credentials) {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(credentials, "credentials");
    return select(
        provider -> provider.newServerBuilderForAddress(address, credentials),
        credentials,
        "address " + address);
  }

  private static ServerBuilder<?> select(
      Function<ServerProvider, NewServerBuilderResult> ask,
      ServerCredentials credentials,
      String where) {
    List<String> refusals = new ArrayList<>();
    for (ServerProvider provider : available()) {
      NewServerBuilderResult result = ask.apply(provider);
      if (result == null) {
        continue;
      }
      if (result.getServerBuilder() != null) {
        return result.getServerBuilder();
      }
      refusals.add(provider.getClass().getName() + ": " + result.getError());
    }
    throw new IllegalStateException(
        "No server transport accepts "
            + credentials
            + " for "
            + where
            + (refusals.isEmpty()
                ? ": add tern-netty (or another transport) to the class path"
                : " (" + String.join("; ", refusals) + ")"));
  }

  /**
   * Returns the builder of the highest-priority available provider that accepts {@code port}.
   *
   * @throws IllegalStateException if none accepts
   */
  public static ServerBuilder<?> select(int port) {
    for (ServerProvider provider : available()) {
      ServerBuilder<?> builder = provider.builderForPort(port);
      if (builder != null) {
        return builder;
      }
    }
    throw new IllegalStateException(
        "No server transport for port "
            + port
            + ": add tern-netty (or another transport) to the class path");
  }

  private static List<ServerProvider> available() {
    List<ServerProvider> providers = new ArrayList<>();
    for (ServerProvider p :
        ServiceLoader.load(ServerProvider.class, ServerProvider.class.getClassLoader())) {
      if (p.isAvailable()) {
        providers.add(p);
      }
    }
    providers.sort(Comparator.comparingInt(ServerProvider::priority).reversed());
    return providers;
  }
}
