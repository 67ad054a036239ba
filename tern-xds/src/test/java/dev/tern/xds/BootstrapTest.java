package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BootstrapTest {
  private static final String SERVER =
      "{\"server_uri\": \"127.0.0.1:1\", \"channel_creds\": [{\"type\": \"insecure\"}]}";

  private static Bootstrap parse(String json) {
    return Bootstrap.parse(json, "test.json");
  }

  @Test
  void everyField() {
    Bootstrap b =
        parse(
            """
            {
              "xds_servers": [{
                "server_uri": "xds.example:443",
                "channel_creds": [{"type": "alts"}, {"type": "google_default", "config": {"a": 1}},
                                  {"type": "insecure"}],
                "server_features": ["xds_v3", "ignore_resource_deletion"]
              }],
              "node": {
                "id": "node-1",
                "cluster": "cluster-1",
                "locality": {"region": "r", "zone": "z", "sub_zone": "s"},
                "metadata": {"k": "v", "n": 2, "b": true, "l": [1, "x"], "o": {"p": null}}
              },
              "certificate_providers": {
                "default": {"plugin_name": "file_watcher", "config": {"certificate_file": "/c", "private_key_file": "/k"}}
              },
              "server_listener_resource_name_template": "grpc/server?xds.resource.listening_address=%s",
              "client_default_listener_resource_name_template": "xdstp://a.example/envoy.config.listener.v3.Listener/%s",
              "authorities": {
                "a.example": {
                  "client_listener_resource_name_template": "xdstp://a.example/L/%s",
                  "xds_servers": [{"server_uri": "a:1", "channel_creds": [{"type": "insecure"}]}]
                },
                "b.example": {}
              },
              "unknown_field": "ignored"
            }
            """);
    Bootstrap.ServerInfo server = b.xdsServers().get(0);
    assertThat(server.serverUri()).isEqualTo("xds.example:443");
    assertThat(server.channelCredsType()).isEqualTo("google_default");
    assertThat(server.channelCredsConfig()).containsEntry("a", 1.0);
    assertThat(server.serverFeatures()).containsExactly("xds_v3", "ignore_resource_deletion");
    assertThat(server.ignoreResourceDeletion()).isTrue();
    assertThat(b.node().id()).isEqualTo("node-1");
    assertThat(b.node().cluster()).isEqualTo("cluster-1");
    assertThat(b.node().locality()).isEqualTo(new Bootstrap.Locality("r", "z", "s"));
    assertThat(b.node().metadata()).containsEntry("k", "v").containsEntry("n", 2.0);
    assertThat(b.certificateProviders())
        .containsEntry(
            "default",
            new Bootstrap.CertificateProvider(
                "file_watcher", Map.of("certificate_file", "/c", "private_key_file", "/k")));
    assertThat(b.certificateProviders().get("default").fileWatcher())
        .isEqualTo(
            new FileWatcherConfig(
                "/c", "/k", null, null, FileWatcherConfig.DEFAULT_REFRESH_INTERVAL));
    assertThat(b.serverListenerResourceNameTemplate())
        .isEqualTo("grpc/server?xds.resource.listening_address=%s");
    assertThat(b.clientDefaultListenerResourceNameTemplate())
        .isEqualTo("xdstp://a.example/envoy.config.listener.v3.Listener/%s");
    assertThat(b.authorities().get("a.example").clientListenerResourceNameTemplate())
        .isEqualTo("xdstp://a.example/L/%s");
    assertThat(b.authorities().get("a.example").xdsServers())
        .extracting(Bootstrap.ServerInfo::serverUri)
        .containsExactly("a:1");
    assertThat(b.authorities().get("b.example"))
        .isEqualTo(
            new Bootstrap.Authority(
                "xdstp://b.example/envoy.config.listener.v3.Listener/%s", List.of()));
  }

  @Test
  void fileWatcherWithOnlyASpiffeBundleMap_isValid_andAnEmptyOneNamesTheField() {
    Bootstrap.CertificateProvider spiffe =
        new Bootstrap.CertificateProvider(
            "file_watcher", Map.of("spiffe_trust_bundle_map_file", "/bundles.json"));
    assertThat(spiffe.fileWatcher())
        .isEqualTo(
            new FileWatcherConfig(
                null, null, null, "/bundles.json", FileWatcherConfig.DEFAULT_REFRESH_INTERVAL));
    Bootstrap.CertificateProvider empty =
        new Bootstrap.CertificateProvider(
            "file_watcher", Map.of("spiffe_trust_bundle_map_file", ""));
    assertThatThrownBy(empty::fileWatcher)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spiffe_trust_bundle_map_file must be a non-empty string");
  }

  @Test
  void defaultsWhenOnlyServersAreGiven() {
    Bootstrap b = parse("{\"xds_servers\": [" + SERVER + "]}");
    assertThat(b.node()).isEqualTo(Bootstrap.Node.EMPTY);
    assertThat(b.certificateProviders()).isEmpty();
    assertThat(b.serverListenerResourceNameTemplate()).isNull();
    assertThat(b.clientDefaultListenerResourceNameTemplate()).isEqualTo("%s");
    assertThat(b.authorities()).isEmpty();
    assertThat(b.xdsServers().get(0).channelCredsType()).isEqualTo("insecure");
    assertThat(b.xdsServers().get(0).ignoreResourceDeletion()).isFalse();
  }

  @Test
  void nodeProtoCarriesFieldsMetadataAndClientFeatures() {
    Bootstrap b =
        parse(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"node\": {\"id\": \"n\", \"cluster\": \"c\","
                + " \"locality\": {\"zone\": \"z\"}, \"metadata\": {\"k\": [\"v\", 1, false, null]}}}");
    var node = b.node().toProto();
    assertThat(node.getId()).isEqualTo("n");
    assertThat(node.getCluster()).isEqualTo("c");
    assertThat(node.getLocality().getZone()).isEqualTo("z");
    assertThat(node.getUserAgentName()).isEqualTo("tern-java");
    assertThat(node.getClientFeaturesList())
        .contains("envoy.lb.does_not_support_overprovisioning", "xds.config.resource-in-sotw");
    var list = node.getMetadata().getFieldsOrThrow("k").getListValue();
    assertThat(list.getValues(0).getStringValue()).isEqualTo("v");
    assertThat(list.getValues(1).getNumberValue()).isEqualTo(1.0);
    assertThat(list.getValues(2).getBoolValue()).isFalse();
    assertThat(list.getValues(3).hasNullValue()).isTrue();
  }

  @Test
  void nullValuesInsideMetadataAndConfigsAreKept() {
    Bootstrap b =
        parse(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{\"type\":"
                + " \"insecure\", \"config\": {\"c\": null}}]}], \"node\": {\"metadata\":"
                + " {\"k\": null}}, \"certificate_providers\": {\"p\": {\"plugin_name\":"
                + " \"file_watcher\", \"config\": {\"d\": null, \"ca_certificate_file\":"
                + " \"/ca\"}}}}");
    assertThat(b.xdsServers().get(0).channelCredsConfig()).containsEntry("c", null);
    assertThat(b.node().metadata()).containsEntry("k", null);
    assertThat(b.certificateProviders().get("p").config()).containsEntry("d", null);
    assertThat(b.node().toProto().getMetadata().getFieldsOrThrow("k").hasNullValue()).isTrue();
  }

  @Test
  void equalBootstrapsAreEqual() {
    String json = "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"a\"}}";
    assertThat(parse(json)).isEqualTo(parse(json)).hasSameHashCodeAs(parse(json));
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        Arguments.of("not json", "test.json: JSON: unexpected word \"not\" at offset 0"),
        Arguments.of(
            "{\"xds_servers\": null}", "test.json: xds_servers: must be an array, was null"),
        Arguments.of(
            "{\"xds_servers\": [null]}", "test.json: xds_servers[0]: must be an object, was null"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": null, \"channel_creds\": []}]}",
            "test.json: xds_servers[0].server_uri: must be a string, was null"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": null}]}",
            "test.json: xds_servers[0].channel_creds: must be an array, was null"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": null}",
            "test.json: node: must be an object, was null"),
        Arguments.of("[]", "test.json: (top level): must be a JSON object"),
        Arguments.of("{}", "test.json: xds_servers: missing"),
        Arguments.of("{\"xds_servers\": {}}", "test.json: xds_servers: must be an array"),
        Arguments.of(
            "{\"xds_servers\": []}", "test.json: xds_servers: must list at least one server"),
        Arguments.of("{\"xds_servers\": [1]}", "test.json: xds_servers[0]: must be an object"),
        Arguments.of(
            "{\"xds_servers\": [{\"channel_creds\": [{\"type\": \"insecure\"}]}]}",
            "test.json: xds_servers[0].server_uri: missing"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": 5, \"channel_creds\": []}]}",
            "test.json: xds_servers[0].server_uri: must be a string, was a number"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"\", \"channel_creds\": []}]}",
            "test.json: xds_servers[0].server_uri: empty"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + ", {\"server_uri\": \"x\"}]}",
            "test.json: xds_servers[1].channel_creds: missing"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{\"type\": \"alts\"}]}]}",
            "test.json: xds_servers[0].channel_creds: no supported type (supported:"
                + " google_default, insecure, tls; listed: [alts])"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": {}}]}",
            "test.json: xds_servers[0].channel_creds: must be an array, was an object"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [\"insecure\"]}]}",
            "test.json: xds_servers[0].channel_creds[0]: must be an object, was a string"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{\"type\":"
                + " \"insecure\"}], \"server_features\": \"xds_v3\"}]}",
            "test.json: xds_servers[0].server_features: must be an array"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"locality\": 3}}",
            "test.json: node.locality: must be an object, was a number"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"certificate_providers\": {\"p\": 1}}",
            "test.json: certificate_providers.p: must be an object"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"certificate_providers\": []}",
            "test.json: certificate_providers: must be an object, was an array"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"authorities\": {\"a\": true}}",
            "test.json: authorities.a: must be an object, was a boolean"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"authorities\": {\"a\": {\"xds_servers\": 1}}}",
            "test.json: authorities.a.xds_servers: must be an array"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{}]}]}",
            "test.json: xds_servers[0].channel_creds[0].type: missing"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{\"type\":"
                + " \"insecure\", \"config\": 1}]}]}",
            "test.json: xds_servers[0].channel_creds[0].config: must be an object"),
        Arguments.of(
            "{\"xds_servers\": [{\"server_uri\": \"x\", \"channel_creds\": [{\"type\":"
                + " \"insecure\"}], \"server_features\": [1]}]}",
            "test.json: xds_servers[0].server_features[0]: must be a string"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": []}",
            "test.json: node: must be an object, was an array"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": 1}}",
            "test.json: node.id: must be a string"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"cluster\": true}}",
            "test.json: node.cluster: must be a string, was a boolean"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"locality\": {\"sub_zone\": null}}}",
            "test.json: node.locality.sub_zone: must be a string, was null"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"metadata\": \"x\"}}",
            "test.json: node.metadata: must be an object"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"certificate_providers\": {\"p\": {}}}",
            "test.json: certificate_providers.p.plugin_name: missing"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"certificate_providers\": {\"p\": {\"plugin_name\": \"file_watcher\","
                + " \"config\": []}}}",
            "test.json: certificate_providers.p.config: must be an object"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"certificate_providers\": {\"p\": {\"plugin_name\": \"pem_vault\"}}}",
            "test.json: certificate_providers.p.plugin_name: unknown certificate provider plugin"
                + " \"pem_vault\" (Tern has file_watcher)"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"certificate_providers\": {\"p\": {\"plugin_name\": \"file_watcher\","
                + " \"config\": {\"certificate_file\": \"/c\"}}}}",
            "test.json: certificate_providers.p.config: certificate_file and private_key_file must"
                + " be given together or not at all"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"certificate_providers\": {\"p\": {\"plugin_name\": \"file_watcher\","
                + " \"config\": {\"ca_certificate_file\": \"/ca\", \"refresh_interval\":"
                + " \"10m\"}}}}",
            "test.json: certificate_providers.p.config: refresh_interval must be a duration such as"
                + " \"600s\", was \"10m\""),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"server_listener_resource_name_template\": 1}",
            "test.json: server_listener_resource_name_template: must be a string"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"client_default_listener_resource_name_template\": []}",
            "test.json: client_default_listener_resource_name_template: must be a string"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"authorities\": []}",
            "test.json: authorities: must be an object"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"authorities\": {\"a\": {\"client_listener_resource_name_template\":"
                + " \"xdstp://b/%s\"}}}",
            "test.json: authorities.a.client_listener_resource_name_template: must start with"
                + " \"xdstp://a/\""),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"authorities\": {\"a\": {\"xds_servers\": [{\"server_uri\": \"x\"}]}}}",
            "test.json: authorities.a.xds_servers[0].channel_creds: missing"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"authorities\": {\"a\": {\"xds_servers\": ["
                + SERVER
                + ", {\"server_uri\": \"\", \"channel_creds\": [{\"type\": \"insecure\"}]}]}}}",
            "test.json: authorities.a.xds_servers[1].server_uri: empty"),
        Arguments.of(
            "{\"xds_servers\": ["
                + SERVER
                + "], \"authorities\": {\"a\": {\"xds_servers\": [{\"server_uri\": \"x\","
                + " \"channel_creds\": [{\"type\": \"alts\"}]}]}}}",
            "test.json: authorities.a.xds_servers[0].channel_creds: no supported type"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"authorities\": {\"a\": {\"xds_servers\": [7]}}}",
            "test.json: authorities.a.xds_servers[0]: must be an object, was a number"),
        Arguments.of(
            "{\"xds_servers\": [" + SERVER + "], \"xds_servers\": []}",
            "duplicate key \"xds_servers\""));
  }

  @ParameterizedTest
  @MethodSource("errors")
  void errorNamesSourceAndField(String json, String message) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOf(XdsBootstrapException.class)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void fileWinsOverInlineConfig(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("bootstrap.json");
    Files.writeString(file, "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"file\"}}");
    Map<String, String> env =
        Map.of(
            Bootstrap.BOOTSTRAP_FILE_ENV,
            file.toString(),
            Bootstrap.BOOTSTRAP_CONFIG_ENV,
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"inline\"}}");
    assertThat(Bootstrap.fromEnvironment(env::get).node().id()).isEqualTo("file");
  }

  @Test
  void inlineConfigWhenNoFile() {
    Map<String, String> env =
        Map.of(
            Bootstrap.BOOTSTRAP_CONFIG_ENV,
            "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"inline\"}}");
    assertThat(Bootstrap.fromEnvironment(env::get).node().id()).isEqualTo("inline");
  }

  @Test
  void inlineConfigErrorsNameTheVariable() {
    Map<String, String> env = Map.of(Bootstrap.BOOTSTRAP_CONFIG_ENV, "{}");
    assertThatThrownBy(() -> Bootstrap.fromEnvironment(env::get))
        .isInstanceOf(XdsBootstrapException.class)
        .hasMessage("GRPC_XDS_BOOTSTRAP_CONFIG: xds_servers: missing");
  }

  @Test
  void fileErrorsNameTheFile(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"xds_servers\": [{\"channel_creds\": []}]}");
    Map<String, String> env = Map.of(Bootstrap.BOOTSTRAP_FILE_ENV, file.toString());
    assertThatThrownBy(() -> Bootstrap.fromEnvironment(env::get))
        .isInstanceOf(XdsBootstrapException.class)
        .hasMessage(file + ": xds_servers[0].server_uri: missing");
  }

  @Test
  void missingFileIsNamed(@TempDir Path dir) {
    Path file = dir.resolve("absent.json");
    Map<String, String> env = Map.of(Bootstrap.BOOTSTRAP_FILE_ENV, file.toString());
    assertThatThrownBy(() -> Bootstrap.fromEnvironment(env::get))
        .isInstanceOf(XdsBootstrapException.class)
        .hasMessageStartingWith(file + " (GRPC_XDS_BOOTSTRAP): cannot be read");
  }

  @Test
  void neitherVariableSet() {
    assertThatThrownBy(() -> Bootstrap.fromEnvironment(name -> null))
        .isInstanceOf(XdsBootstrapException.class)
        .hasMessageContaining("GRPC_XDS_BOOTSTRAP")
        .hasMessageContaining("GRPC_XDS_BOOTSTRAP_CONFIG");
  }

  @Test
  void systemPropertiesAreFallbacksInGrpcJavasOrder(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("prop.json");
    Files.writeString(
        file, "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"prop-file\"}}");
    String inline = "{\"xds_servers\": [" + SERVER + "], \"node\": {\"id\": \"%s\"}}";
    Map<String, String> props =
        Map.of(
            Bootstrap.BOOTSTRAP_FILE_PROPERTY,
            file.toString(),
            Bootstrap.BOOTSTRAP_CONFIG_PROPERTY,
            inline.formatted("prop-inline"));
    // The property's file beats both inline configs; the variable's inline config beats the
    // property's; the property's inline config is the last resort.
    Map<String, String> env =
        Map.of(Bootstrap.BOOTSTRAP_CONFIG_ENV, inline.formatted("env-inline"));
    assertThat(Bootstrap.fromEnvironment(env::get, props::get).node().id()).isEqualTo("prop-file");
    Map<String, String> inlineProps =
        Map.of(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY, inline.formatted("prop-inline"));
    assertThat(Bootstrap.fromEnvironment(env::get, inlineProps::get).node().id())
        .isEqualTo("env-inline");
    assertThat(Bootstrap.fromEnvironment(name -> null, inlineProps::get).node().id())
        .isEqualTo("prop-inline");
    assertThatThrownBy(
            () ->
                Bootstrap.fromEnvironment(
                    name -> null, Map.of(Bootstrap.BOOTSTRAP_CONFIG_PROPERTY, "{}")::get))
        .hasMessage("io.grpc.xds.bootstrapConfig: xds_servers: missing");
  }
}
