package dev.tern.internal.resolver;

import dev.tern.NameResolver.ConfigOrError;
import dev.tern.NameResolver.ServiceConfigParser;
import dev.tern.Status;
import dev.tern.internal.config.ServiceConfigChoices;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The service config a host's {@code _grpc_config} TXT records give this client (gRFC A2): the one
 * record whose text starts with {@code grpc_config=}, its choices selected by {@link
 * ServiceConfigChoices}, the chosen config parsed by the channel's parser.
 *
 * <p>Stateless; thread-safe.
 */
final class GrpcConfigTxt {
  /** The name a host's config is published under: this, then the host name. */
  static final String NAME_PREFIX = "_grpc_config.";

  private static final String ATTRIBUTE = "grpc_config=";

  private GrpcConfigTxt() {}

  /**
   * The config for this client, or null when no record is a {@code grpc_config} one or no choice
   * applies; an UNAVAILABLE error when there is more than one such record, the record is malformed
   * or the parser refuses the chosen config.
   *
   * @param texts the host's TXT records, each its character-strings concatenated
   * @param clientHostname this client's host name, asked for only when a record is found
   * @param percentile draws this client's percentile, 0..99
   */
  static ConfigOrError select(
      List<String> texts,
      Supplier<String> clientHostname,
      IntSupplier percentile,
      ServiceConfigParser parser) {
    String choices = null;
    for (String text : texts) {
      if (text.startsWith(ATTRIBUTE)) {
        if (choices != null) {
          return error("more than one grpc_config TXT record");
        }
        choices = text.substring(ATTRIBUTE.length());
      }
    }
    if (choices == null) {
      return null;
    }
    Map<String, ?> chosen;
    try {
      chosen = ServiceConfigChoices.select(choices, clientHostname.get(), percentile);
    } catch (IllegalArgumentException e) {
      return error(e.getMessage());
    }
    if (chosen == null) {
      return null;
    }
    ConfigOrError parsed = parser.parseServiceConfig(chosen);
    if (parsed.getError() != null) {
      Status refused = parsed.getError();
      return ConfigOrError.fromError(
          Status.UNAVAILABLE
              .withDescription(
                  "grpc_config TXT record: the chosen service config is invalid: "
                      + refused.getDescription())
              .withCause(refused.getCause()));
    }
    return parsed;
  }

  private static ConfigOrError error(String message) {
    return ConfigOrError.fromError(Status.UNAVAILABLE.withDescription(message));
  }
}
