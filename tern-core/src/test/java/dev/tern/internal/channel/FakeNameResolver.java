package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.ConfigSelector;
import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.Status;
import dev.tern.internal.config.JsonParser;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A name resolver the test drives: {@link #resolve}, {@link #resolveWithConfig}, {@link #fail}. Not
 * thread-safe: driven from the test thread (the channel hops into its context).
 */
final class FakeNameResolver extends NameResolver {
  private final RuntimeException startFailure;
  private final Args args;
  private Listener listener;
  int refreshes;
  boolean shutdown;

  FakeNameResolver(RuntimeException startFailure, Args args) {
    this.startFailure = startFailure;
    this.args = args;
  }

  boolean isStarted() {
    return listener != null;
  }

  void resolve(SocketAddress... addresses) {
    resolveWithConfig(null, addresses);
  }

  /** Reports these address groups (with their attributes), without a service config. */
  void resolve(List<EquivalentAddressGroup> groups) {
    listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
  }

  /**
   * Reports {@code addresses} with a service config: {@code json} parsed by the channel's parser
   * (null: none).
   */
  void resolveWithConfig(String json, SocketAddress... addresses) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (SocketAddress address : addresses) {
      groups.add(new EquivalentAddressGroup(address));
    }
    ResolutionResult.Builder result = ResolutionResult.newBuilder().setAddresses(groups);
    if (json != null) {
      result.setServiceConfig(
          args.getServiceConfigParser().parseServiceConfig(JsonParser.parseObject(json)));
    }
    listener.onResult(result.build());
  }

  /**
   * Reports {@code addresses} with a config selector (and a service config, {@code json}, parsed by
   * the channel's parser; null: none).
   */
  void resolveWithSelector(ConfigSelector selector, String json, SocketAddress... addresses) {
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (SocketAddress address : addresses) {
      groups.add(new EquivalentAddressGroup(address));
    }
    ResolutionResult.Builder result =
        ResolutionResult.newBuilder()
            .setAddresses(groups)
            .setAttributes(Attributes.newBuilder().set(ConfigSelector.KEY, selector).build());
    if (json != null) {
      result.setServiceConfig(
          args.getServiceConfigParser().parseServiceConfig(JsonParser.parseObject(json)));
    }
    listener.onResult(result.build());
  }

  /** A method config entry, {@code json}, parsed by the channel's parser for a selector. */
  Object parseMethodConfig(String json) {
    return args.getServiceConfigParser().parseMethodConfig(JsonParser.parseObject(json));
  }

  void fail(Status error) {
    listener.onError(error);
  }

  @Override
  public String getServiceAuthority() {
    return "fake.example:443";
  }

  @Override
  public void start(Listener listener) {
    if (startFailure != null) {
      throw startFailure;
    }
    this.listener = listener;
  }

  @Override
  public void refresh() {
    refreshes++;
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }
}
