package dev.tern.xds;

import com.google.protobuf.Message;
import java.time.Instant;
import java.util.Objects;

/**
 * What an {@link XdsClient} holds for one subscribed resource, as the Client Status Discovery
 * Service reports it (gRFC A40). Immutable; thread-safe.
 *
 * @param typeUrl the resource type's URL, e.g. {@code
 *     type.googleapis.com/envoy.config.listener.v3.Listener}
 * @param name the resource's name
 * @param state where the resource stands
 * @param version the version of the response that last brought it, or null
 * @param resource the resource as last accepted, or null
 * @param lastUpdated when it last changed (arrived, changed or was found not to exist), or null
 * @param failure the last rejection of it since it was last accepted, or null
 */
public record XdsResourceStatus(
    String typeUrl,
    String name,
    State state,
    String version,
    Message resource,
    Instant lastUpdated,
    Failure failure) {
  public XdsResourceStatus {
    Objects.requireNonNull(typeUrl, "typeUrl");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
  }

  /** CSDS's {@code ClientResourceStatus}, the values a gRPC client reports. */
  public enum State {
    /** Asked for; nothing heard yet. */
    REQUESTED,
    /** The control plane said it does not exist, or the does-not-exist timer fired. */
    DOES_NOT_EXIST,
    /** Accepted. */
    ACKED,
    /** The last response holding it was rejected; the last accepted value (if any) still holds. */
    NACKED
  }

  /**
   * A rejected update of the resource.
   *
   * @param version the rejected response's version
   * @param detail why, naming the field
   * @param at when it was rejected
   * @param resource the rejected resource, or null when it could not be decoded
   */
  public record Failure(String version, String detail, Instant at, Message resource) {
    public Failure {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(detail, "detail");
      Objects.requireNonNull(at, "at");
    }
  }
}
