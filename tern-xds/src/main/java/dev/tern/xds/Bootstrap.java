package dev.tern.xds;

import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The xDS bootstrap (gRFC A27, with the fields of A47 federation and A29 certificate providers):
 * which control planes to talk to and how, and who this client is. Immutable; equal bootstraps
 * share one {@link XdsClient} in {@link XdsClientPool}.
 *
 * @param xdsServers the control planes, at least one, in priority order (A71 fallback): those of
 *     resource names that are not {@code xdstp:} names and of authorities without servers of their
 *     own
 * @param node who this client is, sent in the first request of every stream
 * @param certificateProviders the {@code certificate_providers} instances by name (A29; the {@code
 *     file_watcher} plugin)
 * @param serverListenerResourceNameTemplate {@code server_listener_resource_name_template}, or null
 * @param clientDefaultListenerResourceNameTemplate {@code
 *     client_default_listener_resource_name_template}, {@code "%s"} when absent
 * @param authorities the {@code authorities} by name (A47)
 */
public record Bootstrap(
    List<ServerInfo> xdsServers,
    Node node,
    Map<String, CertificateProvider> certificateProviders,
    String serverListenerResourceNameTemplate,
    String clientDefaultListenerResourceNameTemplate,
    Map<String, Authority> authorities) {

  /** The environment variable naming the bootstrap file; it wins over the inline one. */
  public static final String BOOTSTRAP_FILE_ENV = "GRPC_XDS_BOOTSTRAP";

  /** The environment variable holding the bootstrap JSON itself. */
  public static final String BOOTSTRAP_CONFIG_ENV = "GRPC_XDS_BOOTSTRAP_CONFIG";

  /**
   * The system property naming the bootstrap file, grpc-java's fallback when {@code
   * GRPC_XDS_BOOTSTRAP} is not set.
   */
  public static final String BOOTSTRAP_FILE_PROPERTY = "io.grpc.xds.bootstrap";

  /**
   * The system property holding the bootstrap JSON, grpc-java's fallback when {@code
   * GRPC_XDS_BOOTSTRAP_CONFIG} is not set.
   */
  public static final String BOOTSTRAP_CONFIG_PROPERTY = "io.grpc.xds.bootstrapConfig";

  /** The server feature that keeps LDS and CDS resources a response leaves out (A53). */
  public static final String IGNORE_RESOURCE_DELETION = "ignore_resource_deletion";

  public Bootstrap {
    xdsServers = List.copyOf(xdsServers);
    Objects.requireNonNull(node, "node");
    certificateProviders = Map.copyOf(certificateProviders);
    Objects.requireNonNull(clientDefaultListenerResourceNameTemplate);
    authorities = Map.copyOf(authorities);
  }

  /**
   * A control plane: where it is, how to connect, what it supports.
   *
   * @param serverUri the target of the channel to it
   * @param channelCredsType the first type of its {@code channel_creds} list Tern supports: {@code
   *     insecure}, {@code google_default} or {@code tls} (A65)
   * @param channelCredsConfig that entry's {@code config} (empty when absent)
   * @param serverFeatures its {@code server_features}
   */
  public record ServerInfo(
      String serverUri,
      String channelCredsType,
      Map<String, Object> channelCredsConfig,
      List<String> serverFeatures) {
    public ServerInfo {
      Objects.requireNonNull(serverUri, "serverUri");
      Objects.requireNonNull(channelCredsType, "channelCredsType");
      channelCredsConfig = jsonObject(channelCredsConfig);
      serverFeatures = List.copyOf(serverFeatures);
    }

    /** Whether LDS and CDS resources absent from a response are kept rather than deleted. */
    public boolean ignoreResourceDeletion() {
      return serverFeatures.contains(IGNORE_RESOURCE_DELETION);
    }
  }

  /**
   * This client, as the control plane sees it ({@code node}); every field may be empty.
   *
   * @param metadata {@code node.metadata}, as parsed JSON (maps, lists, strings, doubles, booleans,
   *     and null for JSON null)
   */
  public record Node(String id, String cluster, Locality locality, Map<String, Object> metadata) {
    public Node {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(cluster, "cluster");
      Objects.requireNonNull(locality, "locality");
      metadata = jsonObject(metadata);
    }

    /** The node with empty fields, for a bootstrap without one. */
    public static final Node EMPTY = new Node("", "", Locality.EMPTY, Map.of());

    /**
     * The {@code envoy.config.core.v3.Node} sent to the control plane: these fields plus Tern's
     * user agent and the client features of A27.
     */
    io.envoyproxy.envoy.config.core.v3.Node toProto() {
      io.envoyproxy.envoy.config.core.v3.Node.Builder proto =
          io.envoyproxy.envoy.config.core.v3.Node.newBuilder()
              .setId(id)
              .setCluster(cluster)
              .setUserAgentName("tern-java")
              .setUserAgentVersion(userAgentVersion())
              .addClientFeatures("envoy.lb.does_not_support_overprovisioning")
              .addClientFeatures("xds.config.resource-in-sotw");
      if (!locality.equals(Locality.EMPTY)) {
        proto.setLocality(
            io.envoyproxy.envoy.config.core.v3.Locality.newBuilder()
                .setRegion(locality.region())
                .setZone(locality.zone())
                .setSubZone(locality.subZone()));
      }
      if (!metadata.isEmpty()) {
        proto.setMetadata(toStruct(metadata));
      }
      return proto.build();
    }

    private static String userAgentVersion() {
      String version = Bootstrap.class.getPackage().getImplementationVersion();
      return version != null ? version : "dev";
    }
  }

  /** Where this client runs ({@code node.locality}). */
  public record Locality(String region, String zone, String subZone) {
    public Locality {
      Objects.requireNonNull(region, "region");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(subZone, "subZone");
    }

    public static final Locality EMPTY = new Locality("", "", "");
  }

  /** A {@code certificate_providers} instance: its plugin and the plugin's config (A29). */
  public record CertificateProvider(String pluginName, Map<String, Object> config) {
    public CertificateProvider {
      Objects.requireNonNull(pluginName, "pluginName");
      config = jsonObject(config);
    }

    /**
     * The {@code file_watcher} config.
     *
     * @throws IllegalArgumentException if the plugin is another, or the config is not valid
     */
    public FileWatcherConfig fileWatcher() {
      if (!pluginName.equals(FileWatcherConfig.PLUGIN_NAME)) {
        throw new IllegalArgumentException("not a file_watcher instance: " + pluginName);
      }
      return FileWatcherConfig.parse(config);
    }
  }

  /**
   * An {@code authorities} entry (A47).
   *
   * @param clientListenerResourceNameTemplate its template, or {@code
   *     "xdstp://<authority>/envoy.config.listener.v3.Listener/%s"} when absent
   * @param xdsServers its own control planes, or empty for the top-level ones
   */
  public record Authority(String clientListenerResourceNameTemplate, List<ServerInfo> xdsServers) {
    public Authority {
      Objects.requireNonNull(clientListenerResourceNameTemplate);
      xdsServers = List.copyOf(xdsServers);
    }
  }

  /**
   * The bootstrap named by the process's environment, in grpc-java's order: the file {@code
   * GRPC_XDS_BOOTSTRAP} names, else the file the system property {@code io.grpc.xds.bootstrap}
   * names, else the JSON in {@code GRPC_XDS_BOOTSTRAP_CONFIG}, else the JSON in the system property
   * {@code io.grpc.xds.bootstrapConfig}.
   *
   * @throws XdsBootstrapException when none is set, the file cannot be read, or the content is not
   *     a valid bootstrap
   */
  public static Bootstrap fromEnvironment() {
    return fromEnvironment(System::getenv, System::getProperty);
  }

  /** {@link #fromEnvironment()} with the environment given and no system properties (for tests). */
  static Bootstrap fromEnvironment(Function<String, String> env) {
    return fromEnvironment(env, name -> null);
  }

  /** {@link #fromEnvironment()} with the environment and the system properties given. */
  static Bootstrap fromEnvironment(
      Function<String, String> env, Function<String, String> properties) {
    String[][] files = {
      {BOOTSTRAP_FILE_ENV, env.apply(BOOTSTRAP_FILE_ENV)},
      {BOOTSTRAP_FILE_PROPERTY, properties.apply(BOOTSTRAP_FILE_PROPERTY)}
    };
    for (String[] file : files) {
      String path = file[1];
      if (path != null && !path.isEmpty()) {
        String text;
        try {
          text = Files.readString(Path.of(path), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
          throw new XdsBootstrapException(path + " (" + file[0] + "): cannot be read: " + e, e);
        }
        return parse(text, path);
      }
    }
    String inline = env.apply(BOOTSTRAP_CONFIG_ENV);
    if (inline != null && !inline.isEmpty()) {
      return parse(inline, BOOTSTRAP_CONFIG_ENV);
    }
    inline = properties.apply(BOOTSTRAP_CONFIG_PROPERTY);
    if (inline != null && !inline.isEmpty()) {
      return parse(inline, BOOTSTRAP_CONFIG_PROPERTY);
    }
    throw new XdsBootstrapException(
        "no xDS bootstrap: set "
            + BOOTSTRAP_FILE_ENV
            + " (or the system property "
            + BOOTSTRAP_FILE_PROPERTY
            + ") to a file's path, or "
            + BOOTSTRAP_CONFIG_ENV
            + " (or "
            + BOOTSTRAP_CONFIG_PROPERTY
            + ") to its JSON");
  }

  /**
   * Parses bootstrap JSON.
   *
   * @param source what error messages call it: the file's path, or {@code
   *     GRPC_XDS_BOOTSTRAP_CONFIG}
   * @throws XdsBootstrapException naming {@code source}, the field and what is wrong with it
   */
  public static Bootstrap parse(String json, String source) {
    return new BootstrapParser(source).parse(json);
  }

  static Struct toStruct(Map<String, Object> map) {
    Struct.Builder struct = Struct.newBuilder();
    map.forEach((k, v) -> struct.putFields(k, toValue(v)));
    return struct.build();
  }

  /**
   * An unmodifiable copy of a parsed JSON object, in its order: unlike {@link Map#copyOf}, it keeps
   * the null values JSON null is parsed into.
   */
  private static Map<String, Object> jsonObject(Map<String, Object> object) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(object));
  }

  @SuppressWarnings("unchecked")
  private static Value toValue(Object v) {
    if (v instanceof Map<?, ?> m) {
      return Value.newBuilder().setStructValue(toStruct((Map<String, Object>) m)).build();
    }
    if (v instanceof List<?> l) {
      ListValue.Builder list = ListValue.newBuilder();
      l.forEach(e -> list.addValues(toValue(e)));
      return Value.newBuilder().setListValue(list).build();
    }
    if (v instanceof String s) {
      return Value.newBuilder().setStringValue(s).build();
    }
    if (v instanceof Double d) {
      return Value.newBuilder().setNumberValue(d).build();
    }
    if (v instanceof Boolean b) {
      return Value.newBuilder().setBoolValue(b).build();
    }
    return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
  }
}
