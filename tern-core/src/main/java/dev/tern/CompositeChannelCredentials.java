package dev.tern;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Channel credentials plus {@link CallCredentials} applied to every call of the channel, for
 * example TLS plus a bearer token:
 *
 * <pre>{@code
 * ChannelCredentials creds =
 *     CompositeChannelCredentials.create(TlsChannelCredentials.create(), new BearerToken());
 * }</pre>
 *
 * <p>A call that carries call credentials of its own ({@link CallOptions#withCallCredentials}) gets
 * both: the channel's first, then the call's, their headers merged. {@link Grpc#newChannelBuilder}
 * finds a transport for the inner channel credentials and adds an interceptor for the call
 * credentials. Immutable; thread-safe.
 */
public final class CompositeChannelCredentials extends ChannelCredentials {
  private final ChannelCredentials channelCredentials;
  private final CallCredentials callCredentials;

  private CompositeChannelCredentials(
      ChannelCredentials channelCredentials, CallCredentials callCredentials) {
    this.channelCredentials = channelCredentials;
    this.callCredentials = callCredentials;
  }

  /**
   * {@code channelCredentials} plus {@code callCredentials} on every call.
   *
   * @throws IllegalArgumentException if {@code channelCredentials} is itself composite (compose the
   *     call credentials instead)
   */
  public static CompositeChannelCredentials create(
      ChannelCredentials channelCredentials, CallCredentials callCredentials) {
    Objects.requireNonNull(channelCredentials, "channelCredentials");
    Objects.requireNonNull(callCredentials, "callCredentials");
    if (channelCredentials instanceof CompositeChannelCredentials) {
      throw new IllegalArgumentException(
          "channelCredentials must not be composite: " + channelCredentials);
    }
    return new CompositeChannelCredentials(channelCredentials, callCredentials);
  }

  /** The credentials securing the connections. */
  public ChannelCredentials getChannelCredentials() {
    return channelCredentials;
  }

  /** The credentials applied to every call. */
  public CallCredentials getCallCredentials() {
    return callCredentials;
  }

  @Override
  public String toString() {
    return "CompositeChannelCredentials[" + channelCredentials + " + call credentials]";
  }

  /** Adds the call credentials to every call (after those the call has, which run second). */
  ClientInterceptor interceptor() {
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
        CallCredentials own = callOptions.getCredentials();
        CallCredentials both = own == null ? callCredentials : new Both(callCredentials, own);
        return next.newCall(method, callOptions.withCallCredentials(both));
      }
    };
  }

  /**
   * Two call credentials, one after the other, headers merged; the first failure fails the call.
   */
  private static final class Both extends CallCredentials {
    private final CallCredentials first;
    private final CallCredentials second;

    Both(CallCredentials first, CallCredentials second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void applyRequestMetadata(
        RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
      first.applyRequestMetadata(
          requestInfo,
          appExecutor,
          new MetadataApplier() {
            @Override
            public void apply(Metadata firstHeaders) {
              try {
                second.applyRequestMetadata(
                    requestInfo,
                    appExecutor,
                    new MetadataApplier() {
                      @Override
                      public void apply(Metadata secondHeaders) {
                        Metadata merged = new Metadata();
                        merged.merge(firstHeaders);
                        merged.merge(secondHeaders);
                        applier.apply(merged);
                      }

                      @Override
                      public void fail(Status status) {
                        applier.fail(status);
                      }
                    });
              } catch (RuntimeException e) {
                applier.fail(
                    Status.UNAUTHENTICATED.withDescription("call credentials failed").withCause(e));
              }
            }

            @Override
            public void fail(Status status) {
              applier.fail(status);
            }
          });
    }
  }
}
