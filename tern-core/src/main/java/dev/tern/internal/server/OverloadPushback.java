package dev.tern.internal.server;

import dev.tern.Metadata;
import dev.tern.internal.wire.GrpcHeaders;

/**
 * The {@code grpc-retry-pushback-ms} (gRFC A6) that a call refused for overload carries ({@code
 * ServerBuilder.overloadRetryPushback}), shared by the server's fixed and adaptive limits.
 *
 * <p>Immutable, so thread-safe.
 */
final class OverloadPushback {
  /** The header's value; null for none. */
  private final String value;

  /**
   * @param millis the pushback (negative: do not retry); null for none
   */
  OverloadPushback(Long millis) {
    // gRFC A6: any negative value means "do not retry"; -1 says so plainly.
    this.value = millis == null ? null : Long.toString(millis < 0 ? -1 : millis);
  }

  /** The trailers of a refused call: new for each, as sent. */
  Metadata trailers() {
    Metadata trailers = new Metadata();
    if (value != null) {
      trailers.put(GrpcHeaders.RETRY_PUSHBACK_MS, value);
    }
    return trailers;
  }
}
