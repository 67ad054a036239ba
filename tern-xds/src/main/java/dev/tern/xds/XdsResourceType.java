package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import java.util.Set;
import java.util.function.Function;

/**
 * One of the four xDS resource types the client reads: its type URL, how its resources are named,
 * whether a state-of-the-world response lists all of them, and its validation into Tern's model.
 * The four instances are constants; stateless and thread-safe.
 *
 * @param <T> the validated model
 */
public final class XdsResourceType<T> {
  /** LDS: Listener into {@link XdsListener}. */
  public static final XdsResourceType<XdsListener> LISTENER =
      new XdsResourceType<>(
          "Listener",
          "type.googleapis.com/envoy.config.listener.v3.Listener",
          true,
          Listener.parser(),
          m -> ((Listener) m).getName(),
          (m, instances) -> ListenerValidator.validate((Listener) m, instances));

  /** RDS: RouteConfiguration into {@link XdsRouteConfig}. */
  public static final XdsResourceType<XdsRouteConfig> ROUTE_CONFIGURATION =
      new XdsResourceType<>(
          "RouteConfiguration",
          "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
          false,
          RouteConfiguration.parser(),
          m -> ((RouteConfiguration) m).getName(),
          (m, instances) -> RouteValidator.validate((RouteConfiguration) m));

  /** CDS: Cluster into {@link XdsCluster}. */
  public static final XdsResourceType<XdsCluster> CLUSTER =
      new XdsResourceType<>(
          "Cluster",
          "type.googleapis.com/envoy.config.cluster.v3.Cluster",
          true,
          Cluster.parser(),
          m -> ((Cluster) m).getName(),
          (m, instances) -> ClusterValidator.validate((Cluster) m, instances));

  /** EDS: ClusterLoadAssignment into {@link XdsEndpoints}. */
  public static final XdsResourceType<XdsEndpoints> ENDPOINTS =
      new XdsResourceType<>(
          "ClusterLoadAssignment",
          "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment",
          false,
          ClusterLoadAssignment.parser(),
          m -> ((ClusterLoadAssignment) m).getClusterName(),
          (m, instances) -> EndpointsValidator.validate((ClusterLoadAssignment) m));

  /** A validation step that may reject its input. */
  @FunctionalInterface
  interface Validation<T> {
    /**
     * @param instances the bootstrap's certificate provider instance names (A29)
     */
    T apply(Message message, Set<String> instances) throws XdsResourceException;
  }

  private final String typeName;
  private final String typeUrl;
  private final boolean allInEveryResponse;
  private final Parser<? extends Message> parser;
  private final Function<Message, String> name;
  private final Validation<T> validation;

  private XdsResourceType(
      String typeName,
      String typeUrl,
      boolean allInEveryResponse,
      Parser<? extends Message> parser,
      Function<Message, String> name,
      Validation<T> validation) {
    this.typeName = typeName;
    this.typeUrl = typeUrl;
    this.allInEveryResponse = allInEveryResponse;
    this.parser = parser;
    this.name = name;
    this.validation = validation;
  }

  /** The message's short name, as NACK messages use it: {@code Cluster}. */
  public String typeName() {
    return typeName;
  }

  /** The type URL of its DiscoveryRequests and of its resources' {@code Any}. */
  public String typeUrl() {
    return typeUrl;
  }

  /**
   * Whether a state-of-the-world response carries every subscribed resource that exists (LDS, CDS),
   * so that one left out has been deleted; RDS and EDS responses may carry a subset.
   */
  public boolean allInEveryResponse() {
    return allInEveryResponse;
  }

  /** Decodes one resource of a response. */
  Message unpack(Any any) throws XdsResourceException {
    if (!any.getTypeUrl().equals(typeUrl)) {
      throw new XdsResourceException(
          typeName
              + ": a resource of type "
              + any.getTypeUrl()
              + " in a "
              + typeName
              + " response");
    }
    try {
      return parser.parseFrom(any.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(typeName + ": cannot be decoded: " + e.getMessage());
    }
  }

  /** The resource's name. */
  String name(Message resource) {
    return name.apply(resource);
  }

  /**
   * Validates a decoded resource into Tern's model.
   *
   * @throws XdsResourceException naming the resource and the field that is wrong
   */
  public T validate(Message resource) throws XdsResourceException {
    return validation.apply(resource, Set.of());
  }

  /**
   * As {@link #validate(Message)}, where TLS contexts may name the bootstrap's certificate provider
   * {@code instances} (a name not among them is an error).
   */
  T validate(Message resource, Set<String> instances) throws XdsResourceException {
    return validation.apply(resource, instances);
  }

  @Override
  public String toString() {
    return typeName;
  }
}
