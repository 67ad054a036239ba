package dev.tern.grpcjava.internal.server;

/**
 * grpc-java's server provider for Tern, found by {@code ServiceLoader}: {@code
 * ServerBuilder.forPort} and {@code Grpc.newServerBuilderForPort} return a {@link
 * TernServerBuilder} when this jar is on the class path, since its priority is above every
 * grpc-java transport's. Stateless and thread-safe.
 */
public final class TernServerProvider extends io.grpc.ServerProvider {
  /** The highest priority grpc-java's registry allows. */
  static final int PRIORITY = 10;

  /** For {@code ServiceLoader}. */
  public TernServerProvider() {}

  @Override
  protected boolean isAvailable() {
    return true;
  }

  @Override
  protected int priority() {
    return PRIORITY;
  }

  @Override
  protected io.grpc.ServerBuilder<?> builderForPort(int port) {
    return new TernServerBuilder(dev.tern.ServerBuilder.forPort(port));
  }

  @Override
  protected NewServerBuilderResult newServerBuilderForPort(
      int port, io.grpc.ServerCredentials credentials) {
    dev.tern.ServerCredentials converted;
    try {
      converted = dev.tern.grpcjava.internal.convert.Credentials.toTern(credentials);
    } catch (IllegalArgumentException e) {
      return NewServerBuilderResult.error(e.getMessage());
    }
    return NewServerBuilderResult.serverBuilder(
        new TernServerBuilder(dev.tern.Grpc.newServerBuilderForPort(port, converted)));
  }
}
