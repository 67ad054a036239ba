package dev.tern.internal.channel;

import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import dev.tern.internal.config.ServiceConfig;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which service config a channel uses after each resolution (the rules of gRFC A2 and grpc-java):
 *
 * <ul>
 *   <li>look-up off: always the default config (or none);
 *   <li>the resolver gave a config: that one;
 *   <li>the resolver gave none: the default config (or none);
 *   <li>the resolver gave an invalid one: the last good config, else the default one; with neither,
 *       the resolution counts as failed. Each new invalid config is logged once, as a warning.
 * </ul>
 *
 * <p>Not thread-safe: used in the channel's synchronization context.
 */
final class ServiceConfigSelector {
  private static final Logger logger = Logger.getLogger(ServiceConfigSelector.class.getName());

  private final String target;
  private final ServiceConfig defaultConfig;
  private final boolean lookUp;
  private ServiceConfig lastGood;
  private Status lastError;

  ServiceConfigSelector(String target, ServiceConfigOptions options) {
    this.target = target;
    this.defaultConfig = options.defaultConfig();
    this.lookUp = options.lookUp();
  }

  /** The config with no resolver result to go by: the last good one, else the default, or EMPTY. */
  ServiceConfig current() {
    if (lastGood != null) {
      return lastGood;
    }
    return defaultConfig != null ? defaultConfig : ServiceConfig.EMPTY;
  }

  /**
   * The config to use after a resolution that came with {@code fromResolver} (null: none).
   *
   * @return the config, or null if the resolution must be treated as failed (see {@link
   *     #lastError()})
   */
  ServiceConfig select(ConfigOrError fromResolver) {
    if (!lookUp || fromResolver == null) {
      lastError = null;
      lastGood = null;
      return defaultConfig != null ? defaultConfig : ServiceConfig.EMPTY;
    }
    if (fromResolver.getError() == null) {
      lastError = null;
      Object config = fromResolver.getConfig();
      if (!(config instanceof ServiceConfig parsed)) {
        return rejected(
            Status.INTERNAL.withDescription(
                "the resolver's service config was not made by the channel's parser: " + config));
      }
      lastGood = parsed;
      return parsed;
    }
    return rejected(fromResolver.getError());
  }

  private ServiceConfig rejected(Status error) {
    boolean fresh = lastError == null || !lastError.toString().equals(error.toString());
    lastError = error;
    ServiceConfig fallback = lastGood != null ? lastGood : defaultConfig;
    if (fresh) {
      logger.log(
          Level.WARNING,
          "Channel for '"
              + target
              + "': its name resolver gave an invalid service config ("
              + error.getDescription()
              + "); "
              + (lastGood != null
                  ? "keeping the last good one"
                  : fallback != null ? "using the default one" : "no config to fall back on"));
    }
    return fallback;
  }

  /** The error of the last invalid config, while it is the latest. */
  Status lastError() {
    return lastError;
  }
}
