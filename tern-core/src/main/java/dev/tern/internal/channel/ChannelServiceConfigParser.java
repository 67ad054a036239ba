package dev.tern.internal.channel;

import dev.tern.LoadBalancerRegistry;
import dev.tern.NameResolver;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.config.ServiceConfigParser;
import java.util.Map;

/**
 * The service config parser a channel gives its resolvers: checks a config against the channel's
 * load balancer registry and returns a {@link dev.tern.internal.config.ServiceConfig}, or an
 * UNAVAILABLE error saying which field is wrong.
 *
 * <p>Thread-safe (stateless).
 */
final class ChannelServiceConfigParser extends NameResolver.ServiceConfigParser {
  private final LoadBalancerRegistry registry;

  ChannelServiceConfigParser(LoadBalancerRegistry registry) {
    this.registry = registry;
  }

  @Override
  public ConfigOrError parseServiceConfig(Map<String, ?> rawServiceConfig) {
    if (rawServiceConfig == null) {
      return ConfigOrError.fromError(
          Status.UNAVAILABLE.withDescription("service config: null instead of a JSON object"));
    }
    try {
      return ConfigOrError.fromConfig(ServiceConfigParser.parse(rawServiceConfig, registry));
    } catch (IllegalArgumentException | ClassCastException e) {
      return ConfigOrError.fromError(
          Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e));
    }
  }

  /** A config selector's method config, parsed the way the service config's entries are. */
  @Override
  public Object parseMethodConfig(Map<String, ?> rawMethodConfig) {
    try {
      return ServiceConfigParser.parseMethodConfig(rawMethodConfig);
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("method config: " + e.getMessage(), e);
    }
  }
}
