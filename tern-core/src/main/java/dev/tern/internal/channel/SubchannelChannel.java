package dev.tern.internal.channel;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.client.CallSettings;
import dev.tern.internal.client.ClientCallImpl;
import dev.tern.internal.client.ClientStreamProvider;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.internal.config.MethodConfig;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * {@link SubchannelImpl#asChannel()}: calls on one subchannel's READY transport, without the
 * balancer, the service config or the channel's interceptors. A call that starts while the
 * subchannel has no READY transport fails UNAVAILABLE.
 *
 * <p>Thread-safe: immutable; each call reads the subchannel's transport once, lock-free.
 */
public final class SubchannelChannel extends Channel implements ClientStreamProvider {
  private final SubchannelImpl subchannel;
  private final CallSettings settings;
  private final String authority;

  /**
   * @param executor the channel's application executor (a direct one when the channel runs
   *     callbacks inline, as {@code config} says)
   */
  SubchannelChannel(
      SubchannelImpl subchannel, ChannelConfig config, Executor executor, String authority) {
    this.subchannel = subchannel;
    this.settings = config.callSettings(executor);
    this.authority = authority;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(callOptions, "callOptions");
    return new ClientCallImpl<>(
        method,
        callOptions,
        MethodConfig.NONE,
        this,
        settings,
        null); // channelz counts these as streams of the subchannel's connection
  }

  @Override
  public String authority() {
    return authority;
  }

  @Override
  public ClientStream newStream(
      PickSubchannelArgs call, MethodConfig methodConfig, Deadline deadline, Executor appExecutor) {
    ManagedClientTransport transport = subchannel.readyTransport();
    if (transport == null) {
      return DelayedClientStream.failed(
          Status.UNAVAILABLE.withDescription(subchannel + " is not READY"));
    }
    CallOptions callOptions = call.getCallOptions();
    String override = callOptions.getAuthority();
    return CallCredentialsApplier.newStream(
        transport,
        call.getMethodDescriptor(),
        call.getHeaders(),
        callOptions,
        override != null ? override : authority,
        appExecutor);
  }

  @Override
  public String toString() {
    return "SubchannelChannel{" + subchannel + "}";
  }
}
