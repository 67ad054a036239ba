package dev.tern.xds;

import dev.tern.internal.config.JsonParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads bootstrap JSON into a {@link Bootstrap}, field by field, each error naming the source, the
 * field's path and what is wrong. Unknown fields are ignored (A27). One parse per instance, on one
 * thread.
 */
final class BootstrapParser {
  /** The {@code channel_creds} types Tern can use, in no particular order (the list's wins). */
  static final Set<String> SUPPORTED_CHANNEL_CREDS =
      Set.of("insecure", "google_default", ControlPlaneTls.TYPE);

  private static final String XDSTP = "xdstp://";

  /**
   * A field whose value is JSON null, as {@link #field} returns it: JsonParser reads null as Java
   * null, which {@link Map#get} also returns for a missing field, and a null field is the wrong
   * kind of value ("must be a string, was null"), not an absent one.
   */
  private static final Object NULL_FIELD =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  private final String source;

  BootstrapParser(String source) {
    this.source = source;
  }

  Bootstrap parse(String json) {
    Object root;
    try {
      root = JsonParser.parse(json);
    } catch (IllegalArgumentException e) {
      throw new XdsBootstrapException(source + ": " + e.getMessage(), e);
    }
    if (!(root instanceof Map<?, ?>)) {
      throw error("(top level)", "must be a JSON object");
    }
    Map<String, Object> top = asObject(root, "(top level)");
    List<Bootstrap.ServerInfo> servers = servers(field(top, "xds_servers"), "xds_servers", true);
    Bootstrap.Node node = node(field(top, "node"));
    Map<String, Bootstrap.CertificateProvider> providers =
        certificateProviders(field(top, "certificate_providers"));
    String serverTemplate = optionalString(top, "server_listener_resource_name_template", "", null);
    String clientTemplate =
        optionalString(top, "client_default_listener_resource_name_template", "", "%s");
    Map<String, Bootstrap.Authority> authorities = authorities(field(top, "authorities"));
    return new Bootstrap(servers, node, providers, serverTemplate, clientTemplate, authorities);
  }

  private List<Bootstrap.ServerInfo> servers(Object value, String path, boolean required) {
    if (value == null) {
      if (required) {
        throw error(path, "missing");
      }
      return List.of();
    }
    List<Object> list = asList(value, path);
    if (list.isEmpty() && required) {
      throw error(path, "must list at least one server");
    }
    List<Bootstrap.ServerInfo> servers = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      servers.add(server(list.get(i), path + "[" + i + "]"));
    }
    return servers;
  }

  private Bootstrap.ServerInfo server(Object value, String path) {
    Map<String, Object> server = asObject(value, path);
    String uri = requiredString(server, "server_uri", path);
    if (uri.isEmpty()) {
      throw error(path + ".server_uri", "empty");
    }
    Object credsValue = field(server, "channel_creds");
    if (credsValue == null) {
      throw error(path + ".channel_creds", "missing");
    }
    List<Object> creds = asList(credsValue, path + ".channel_creds");
    String type = null;
    Map<String, Object> config = Map.of();
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < creds.size(); i++) {
      String credsPath = path + ".channel_creds[" + i + "]";
      Map<String, Object> entry = asObject(creds.get(i), credsPath);
      String entryType = requiredString(entry, "type", credsPath);
      seen.add(entryType);
      Object entryConfig = field(entry, "config");
      if (entryConfig != null) {
        asObject(entryConfig, credsPath + ".config");
      }
      if (type == null && SUPPORTED_CHANNEL_CREDS.contains(entryType)) {
        type = entryType;
        config = entryConfig == null ? Map.of() : asObject(entryConfig, credsPath + ".config");
        if (type.equals(ControlPlaneTls.TYPE)) {
          try {
            ControlPlaneTls.check(config);
          } catch (IllegalArgumentException bad) {
            throw error(credsPath + ".config", bad.getMessage());
          }
        }
      }
    }
    if (type == null) {
      throw error(
          path + ".channel_creds",
          "no supported type (supported: google_default, insecure, tls; listed: " + seen + ")");
    }
    List<String> features = new ArrayList<>();
    Object featuresValue = field(server, "server_features");
    if (featuresValue != null) {
      List<Object> list = asList(featuresValue, path + ".server_features");
      for (int i = 0; i < list.size(); i++) {
        features.add(asString(list.get(i), path + ".server_features[" + i + "]"));
      }
    }
    return new Bootstrap.ServerInfo(uri, type, config, features);
  }

  private Bootstrap.Node node(Object value) {
    if (value == null) {
      return Bootstrap.Node.EMPTY;
    }
    Map<String, Object> node = asObject(value, "node");
    String id = optionalString(node, "id", "node.", "");
    String cluster = optionalString(node, "cluster", "node.", "");
    Bootstrap.Locality locality = Bootstrap.Locality.EMPTY;
    Object localityValue = field(node, "locality");
    if (localityValue != null) {
      Map<String, Object> l = asObject(localityValue, "node.locality");
      locality =
          new Bootstrap.Locality(
              optionalString(l, "region", "node.locality.", ""),
              optionalString(l, "zone", "node.locality.", ""),
              optionalString(l, "sub_zone", "node.locality.", ""));
    }
    Map<String, Object> metadata = Map.of();
    Object metadataValue = field(node, "metadata");
    if (metadataValue != null) {
      metadata = asObject(metadataValue, "node.metadata");
    }
    return new Bootstrap.Node(id, cluster, locality, metadata);
  }

  private Map<String, Bootstrap.CertificateProvider> certificateProviders(Object value) {
    if (value == null) {
      return Map.of();
    }
    Map<String, Bootstrap.CertificateProvider> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : asObject(value, "certificate_providers").entrySet()) {
      String path = "certificate_providers." + e.getKey();
      Map<String, Object> provider = asObject(e.getValue(), path);
      String plugin = requiredString(provider, "plugin_name", path);
      if (!plugin.equals(FileWatcherConfig.PLUGIN_NAME)) {
        throw error(
            path + ".plugin_name",
            "unknown certificate provider plugin \""
                + plugin
                + "\" (Tern has "
                + FileWatcherConfig.PLUGIN_NAME
                + ")");
      }
      Object config = field(provider, "config");
      Map<String, Object> configObject =
          config == null ? Map.of() : asObject(config, path + ".config");
      try {
        FileWatcherConfig.parse(configObject);
      } catch (IllegalArgumentException bad) {
        throw error(path + ".config", bad.getMessage());
      }
      out.put(e.getKey(), new Bootstrap.CertificateProvider(plugin, configObject));
    }
    return out;
  }

  private Map<String, Bootstrap.Authority> authorities(Object value) {
    if (value == null) {
      return Map.of();
    }
    Map<String, Bootstrap.Authority> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : asObject(value, "authorities").entrySet()) {
      String name = e.getKey();
      String path = "authorities." + name;
      Map<String, Object> authority = asObject(e.getValue(), path);
      String prefix = XDSTP + name + "/";
      String template =
          optionalString(
              authority,
              "client_listener_resource_name_template",
              path + ".",
              prefix + "envoy.config.listener.v3.Listener/%s");
      if (!template.startsWith(prefix)) {
        throw error(
            path + ".client_listener_resource_name_template",
            "must start with \"" + prefix + "\", was \"" + template + "\"");
      }
      List<Bootstrap.ServerInfo> servers =
          servers(field(authority, "xds_servers"), path + ".xds_servers", false);
      out.put(name, new Bootstrap.Authority(template, servers));
    }
    return out;
  }

  private String requiredString(Map<String, Object> object, String field, String path) {
    Object value = field(object, field);
    if (value == null) {
      throw error(path + "." + field, "missing");
    }
    return asString(value, path + "." + field);
  }

  private String optionalString(
      Map<String, Object> object, String field, String pathPrefix, String absent) {
    Object value = field(object, field);
    return value == null ? absent : asString(value, pathPrefix + field);
  }

  /** The field's value, {@link #NULL_FIELD} if it is JSON null, or Java null if it is missing. */
  private static Object field(Map<String, Object> object, String name) {
    Object value = object.get(name);
    return value == null && object.containsKey(name) ? NULL_FIELD : value;
  }

  private String asString(Object value, String path) {
    if (value instanceof String s) {
      return s;
    }
    throw error(path, "must be a string, was " + describe(value));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> asObject(Object value, String path) {
    if (value instanceof Map<?, ?> m) {
      return (Map<String, Object>) m;
    }
    throw error(path, "must be an object, was " + describe(value));
  }

  @SuppressWarnings("unchecked")
  private List<Object> asList(Object value, String path) {
    if (value instanceof List<?> l) {
      return (List<Object>) l;
    }
    throw error(path, "must be an array, was " + describe(value));
  }

  private static String describe(Object value) {
    if (value instanceof Map<?, ?>) {
      return "an object";
    }
    if (value instanceof List<?>) {
      return "an array";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Double) {
      return "a number";
    }
    if (value instanceof Boolean) {
      return "a boolean";
    }
    return "null";
  }

  private XdsBootstrapException error(String path, String what) {
    return new XdsBootstrapException(source + ": " + path + ": " + what);
  }
}
