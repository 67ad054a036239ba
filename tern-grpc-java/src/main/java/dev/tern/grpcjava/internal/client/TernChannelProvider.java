package dev.tern.grpcjava.internal.client;

import dev.tern.grpcjava.internal.resolver.GrpcJavaResolvers;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;

/**
 * grpc-java's channel provider for Tern, found by {@code ServiceLoader}: {@code
 * ManagedChannelBuilder.forTarget}, {@code forAddress} and {@code Grpc.newChannelBuilder} return a
 * {@link TernChannelBuilder} when this jar is on the class path, since its priority is above every
 * grpc-java transport's (grpc-netty, grpc-netty-shaded and grpc-okhttp use 5 or less). Stateless
 * and thread-safe.
 */
public final class TernChannelProvider extends io.grpc.ManagedChannelProvider {
  /** The highest priority grpc-java's registry allows. */
  static final int PRIORITY = 10;

  /** For {@code ServiceLoader}. */
  public TernChannelProvider() {}

  @Override
  protected boolean isAvailable() {
    return true;
  }

  @Override
  protected int priority() {
    return PRIORITY;
  }

  @Override
  protected io.grpc.ManagedChannelBuilder<?> builderForAddress(String host, int port) {
    return new TernChannelBuilder(
        dev.tern.ManagedChannelBuilder.forAddress(host, port), host + ":" + port);
  }

  @Override
  protected io.grpc.ManagedChannelBuilder<?> builderForTarget(String target) {
    return new TernChannelBuilder(
        withResolver(dev.tern.ManagedChannelBuilder.forTarget(target), target), target);
  }

  /**
   * {@code builder}, resolving {@code target} with the grpc-java provider the application
   * registered for its scheme when Tern has no resolver of its own for it.
   */
  private static dev.tern.ManagedChannelBuilder<?> withResolver(
      dev.tern.ManagedChannelBuilder<?> builder, String target) {
    dev.tern.NameResolverRegistry registry = GrpcJavaResolvers.registryFor(target);
    return registry == null ? builder : builder.nameResolverRegistry(registry);
  }

  /**
   * A builder for {@code target} secured by {@code credentials} (see {@code Credentials.toTern});
   * composite credentials' call credentials are added to every call's options, before any call
   * credentials of the call's own, as on grpc-java.
   */
  @Override
  protected NewChannelBuilderResult newChannelBuilder(
      String target, io.grpc.ChannelCredentials credentials) {
    if (credentials instanceof io.grpc.CompositeChannelCredentials composite) {
      NewChannelBuilderResult result = newChannelBuilder(target, composite.getChannelCredentials());
      if (result.getChannelBuilder() != null) {
        result
            .getChannelBuilder()
            .intercept(new CallCredentialsInterceptor(composite.getCallCredentials()));
      }
      return result;
    }
    dev.tern.ChannelCredentials converted;
    try {
      converted = dev.tern.grpcjava.internal.convert.Credentials.toTern(credentials);
    } catch (IllegalArgumentException e) {
      return NewChannelBuilderResult.error(e.getMessage());
    }
    return NewChannelBuilderResult.channelBuilder(
        new TernChannelBuilder(
            withResolver(dev.tern.Grpc.newChannelBuilder(target, converted), target), target));
  }

  @Override
  protected Collection<Class<? extends SocketAddress>> getSupportedSocketAddressTypes() {
    return List.of(InetSocketAddress.class);
  }

  /** Adds composite channel credentials' call credentials to each call. Thread-safe. */
  private static final class CallCredentialsInterceptor implements io.grpc.ClientInterceptor {
    private final io.grpc.CallCredentials credentials;

    CallCredentialsInterceptor(io.grpc.CallCredentials credentials) {
      this.credentials = credentials;
    }

    @Override
    public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> interceptCall(
        io.grpc.MethodDescriptor<ReqT, RespT> method,
        io.grpc.CallOptions callOptions,
        io.grpc.Channel next) {
      io.grpc.CallCredentials own = callOptions.getCredentials();
      io.grpc.CallCredentials all =
          own == null ? credentials : new io.grpc.CompositeCallCredentials(credentials, own);
      return next.newCall(method, callOptions.withCallCredentials(all));
    }
  }
}
