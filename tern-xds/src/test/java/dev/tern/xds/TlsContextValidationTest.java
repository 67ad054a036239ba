package dev.tern.xds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import dev.tern.xds.XdsTlsContext.SanType;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateProviderPluginInstance;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.SubjectAltNameMatcher;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.TlsCertificate;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A Cluster's UpstreamTlsContext (A29) as the validator reads it, and SAN matching. */
class TlsContextValidationTest {
  private static final Set<String> INSTANCES = Set.of("roots", "identity");

  private static CertificateProviderPluginInstance instance(String name) {
    return CertificateProviderPluginInstance.newBuilder().setInstanceName(name).build();
  }

  @SuppressWarnings("deprecation") // A29 reads match_subject_alt_names
  private static CommonTlsContext.Builder common(String roots, StringMatcher... sans) {
    CertificateValidationContext.Builder validation =
        CertificateValidationContext.newBuilder().setCaCertificateProviderInstance(instance(roots));
    for (StringMatcher san : sans) {
      validation.addMatchSubjectAltNames(san);
    }
    return CommonTlsContext.newBuilder().setValidationContext(validation);
  }

  private static Cluster cluster(CommonTlsContext.Builder common) {
    return Resources.edsCluster("c", "c-eds")
        .setTransportSocket(
            TransportSocket.newBuilder()
                .setName("envoy.transport_sockets.tls")
                .setTypedConfig(
                    Any.pack(UpstreamTlsContext.newBuilder().setCommonTlsContext(common).build())))
        .build();
  }

  private static XdsCluster validate(Cluster cluster) throws XdsResourceException {
    return XdsResourceType.CLUSTER.validate(cluster, INSTANCES);
  }

  @Test
  void upstreamTls_isReadWithItsSanMatchers() throws Exception {
    XdsCluster cluster =
        validate(
            cluster(
                common(
                        "roots",
                        StringMatcher.newBuilder()
                            .setExact("Backend.Example")
                            .setIgnoreCase(true)
                            .build(),
                        StringMatcher.newBuilder()
                            .setSafeRegex(RegexMatcher.newBuilder().setRegex("spiffe://mesh/.*"))
                            .build())
                    .setTlsCertificateProviderInstance(instance("identity"))));

    XdsTlsContext tls = cluster.upstreamTls();
    assertThat(tls.validationInstance()).isEqualTo("roots");
    assertThat(tls.identityInstance()).isEqualTo("identity");
    assertThat(tls.subjectAltNames()).hasSize(2);
    assertThat(tls.subjectAltNames().get(0).matches(SanType.DNS, "backend.example")).isTrue();
    assertThat(tls.subjectAltNames().get(0).matches(SanType.DNS, "backend.example.org")).isFalse();
    assertThat(tls.subjectAltNames().get(1).matches(SanType.URI, "spiffe://mesh/orders")).isTrue();
    assertThat(tls.subjectAltNames().get(1).matches(SanType.URI, "spiffe://other/orders"))
        .isFalse();
  }

  @Test
  void typedSanMatchers_replaceTheUntypedOnes() throws Exception {
    CommonTlsContext.Builder common =
        common("roots", StringMatcher.newBuilder().setExact("ignored.example").build());
    common
        .getValidationContextBuilder()
        .addMatchTypedSubjectAltNames(
            SubjectAltNameMatcher.newBuilder()
                .setSanType(SubjectAltNameMatcher.SanType.URI)
                .setMatcher(StringMatcher.newBuilder().setPrefix("spiffe://mesh/")));
    XdsTlsContext tls = validate(cluster(common)).upstreamTls();

    assertThat(tls.subjectAltNames())
        .containsExactly(
            new XdsTlsContext.SanMatcher(
                XdsTlsContext.Kind.PREFIX, "spiffe://mesh/", null, false, SanType.URI));
  }

  @Test
  void badSanMatchers_areNackedNamingTheField() {
    assertThatThrownBy(
            () ->
                validate(
                    cluster(common("roots", StringMatcher.newBuilder().setPrefix("").build()))))
        .hasMessageContaining(
            "validation_context.match_subject_alt_names[0].prefix: must not be empty");
    assertThatThrownBy(() -> validate(cluster(common("roots", StringMatcher.getDefaultInstance()))))
        .hasMessageContaining("match_subject_alt_names[0]: no match pattern");
    CommonTlsContext.Builder otherName = common("roots");
    otherName
        .getValidationContextBuilder()
        .addMatchTypedSubjectAltNames(
            SubjectAltNameMatcher.newBuilder()
                .setSanType(SubjectAltNameMatcher.SanType.OTHER_NAME)
                .setMatcher(StringMatcher.newBuilder().setExact("x")));
    assertThatThrownBy(() -> validate(cluster(otherName)))
        .hasMessageContaining(
            "match_typed_subject_alt_names[0].san_type: OTHER_NAME is not supported");
    CommonTlsContext.Builder noMatcher = common("roots");
    noMatcher
        .getValidationContextBuilder()
        .addMatchTypedSubjectAltNames(
            SubjectAltNameMatcher.newBuilder().setSanType(SubjectAltNameMatcher.SanType.DNS));
    assertThatThrownBy(() -> validate(cluster(noMatcher)))
        .hasMessageContaining("match_typed_subject_alt_names[0].matcher: missing");
  }

  @Test
  void clusterWithoutTls_hasNone() throws Exception {
    assertThat(validate(Resources.edsCluster("c", "c-eds").build()).upstreamTls()).isNull();
  }

  @Test
  void badUpstreamTls_isNackedNamingTheField() {
    assertThatThrownBy(() -> validate(cluster(common("elsewhere"))))
        .isInstanceOf(XdsResourceException.class)
        .hasMessageContaining(
            "transport_socket.typed_config.common_tls_context.validation_context"
                + ".ca_certificate_provider_instance.instance_name: \"elsewhere\" is not a"
                + " certificate_providers instance");
    assertThatThrownBy(() -> validate(cluster(CommonTlsContext.newBuilder())))
        .hasMessageContaining("no ca_certificate_provider_instance");
    assertThatThrownBy(
            () ->
                validate(cluster(common("roots").addTlsCertificates(TlsCertificate.newBuilder()))))
        .hasMessageContaining("common_tls_context.tls_certificates: inline certificates");
    assertThatThrownBy(
            () ->
                validate(
                    cluster(
                        common("roots")
                            .addTlsCertificateSdsSecretConfigs(
                                SdsSecretConfig.newBuilder().setName("s")))))
        .hasMessageContaining("tls_certificate_sds_secret_configs: SDS is not supported");
    assertThatThrownBy(
            () ->
                validate(
                    cluster(
                        common(
                            "roots",
                            StringMatcher.newBuilder()
                                .setSafeRegex(RegexMatcher.newBuilder().setRegex("("))
                                .build()))))
        .hasMessageContaining("match_subject_alt_names[0].safe_regex: invalid regex");
  }

  private static Cluster clusterWithSni(String sni) {
    return Resources.edsCluster("c", "c-eds")
        .setTransportSocket(
            TransportSocket.newBuilder()
                .setName("envoy.transport_sockets.tls")
                .setTypedConfig(
                    Any.pack(
                        UpstreamTlsContext.newBuilder()
                            .setCommonTlsContext(common("roots"))
                            .setSni(sni)
                            .setAutoHostSni(true)
                            .setAutoSniSanValidation(true)
                            .build())))
        .build();
  }

  @Test
  void sni_isReadAndBadOnesNacked() throws Exception {
    XdsTlsContext tls = validate(clusterWithSni("orders.mesh.test")).upstreamTls();
    assertThat(tls.sni()).isEqualTo("orders.mesh.test");
    assertThat(tls.autoHostSni()).isTrue();
    assertThat(tls.autoSniSanValidation()).isTrue();

    assertThatThrownBy(() -> validate(clusterWithSni("a".repeat(256))))
        .hasMessageContaining("transport_socket.typed_config.sni: longer than 255 characters");
    assertThatThrownBy(() -> validate(clusterWithSni("bad name.test")))
        .hasMessageContaining(
            "transport_socket.typed_config.sni: \"bad name.test\" is not a host name");
  }

  @Test
  void systemRootCerts_areTheRootsWhenNoInstanceIsNamed() throws Exception {
    CommonTlsContext.Builder onlySystem =
        CommonTlsContext.newBuilder()
            .setValidationContext(
                CertificateValidationContext.newBuilder()
                    .setSystemRootCerts(CertificateValidationContext.SystemRootCerts.newBuilder()));
    XdsTlsContext tls = validate(cluster(onlySystem)).upstreamTls();
    assertThat(tls.systemRootCerts()).isTrue();
    assertThat(tls.validationInstance()).isNull();

    CommonTlsContext.Builder both = common("roots");
    both.getValidationContextBuilder()
        .setSystemRootCerts(CertificateValidationContext.SystemRootCerts.newBuilder());
    XdsTlsContext instanceWins = validate(cluster(both)).upstreamTls();
    assertThat(instanceWins.systemRootCerts()).isFalse();
    assertThat(instanceWins.validationInstance()).isEqualTo("roots");
  }

  @Test
  void systemRootCerts_onAServer_areNackedNamingTheField() {
    CommonTlsContext.Builder common = common("roots");
    common
        .setTlsCertificateProviderInstance(instance("identity"))
        .getValidationContextBuilder()
        .setSystemRootCerts(CertificateValidationContext.SystemRootCerts.newBuilder());
    TransportSocket socket =
        TransportSocket.newBuilder()
            .setName("envoy.transport_sockets.tls")
            .setTypedConfig(
                Any.pack(DownstreamTlsContext.newBuilder().setCommonTlsContext(common).build()))
            .build();
    assertThatThrownBy(() -> TlsContextValidator.downstream(socket, "transport_socket", INSTANCES))
        .hasMessage(
            "transport_socket.typed_config.common_tls_context.validation_context.system_root_certs:"
                + " not supported on servers (A82)");
  }
}
