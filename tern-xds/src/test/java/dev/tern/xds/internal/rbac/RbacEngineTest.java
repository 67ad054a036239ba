package dev.tern.xds.internal.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UInt32Value;
import dev.tern.Metadata;
import io.envoyproxy.envoy.config.core.v3.CidrRange;
import io.envoyproxy.envoy.config.rbac.v3.Permission;
import io.envoyproxy.envoy.config.rbac.v3.Policy;
import io.envoyproxy.envoy.config.rbac.v3.Principal;
import io.envoyproxy.envoy.config.rbac.v3.RBAC;
import io.envoyproxy.envoy.config.route.v3.HeaderMatcher;
import io.envoyproxy.envoy.type.matcher.v3.PathMatcher;
import io.envoyproxy.envoy.type.matcher.v3.RegexMatcher;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/** The RBAC engine (A41): policies compiled from the Envoy protos, decided on calls. */
@SuppressWarnings("deprecation") // source_ip and metadata, which A41 covers
class RbacEngineTest {
  private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 8443);
  private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.7", 50000);

  private static RbacEngine engine(RBAC.Action action, Permission permission, Principal principal)
      throws RbacException {
    return RbacParser.parse(
        RBAC.newBuilder()
            .setAction(action)
            .putPolicies(
                "p",
                Policy.newBuilder().addPermissions(permission).addPrincipals(principal).build())
            .build(),
        "rules");
  }

  private static RbacEngine allowIf(Permission permission) throws RbacException {
    return engine(RBAC.Action.ALLOW, permission, Principal.newBuilder().setAny(true).build());
  }

  private static RbacEngine allowIf(Principal principal) throws RbacException {
    return engine(RBAC.Action.ALLOW, Permission.newBuilder().setAny(true).build(), principal);
  }

  private static RbacRequest request(String path, Metadata headers, SSLSession tls) {
    return new RbacRequest(path, headers, "svc.example:443", LOCAL, PEER, tls);
  }

  private static RbacRequest request(String path) {
    return request(path, new Metadata(), null);
  }

  private static StringMatcher prefix(String prefix) {
    return StringMatcher.newBuilder().setPrefix(prefix).build();
  }

  private static Permission path(String prefix) {
    return Permission.newBuilder()
        .setUrlPath(PathMatcher.newBuilder().setPath(prefix(prefix)))
        .build();
  }

  private static Permission header(HeaderMatcher.Builder header) {
    return Permission.newBuilder().setHeader(header).build();
  }

  private static CidrRange cidr(String prefix, int length) {
    return CidrRange.newBuilder()
        .setAddressPrefix(prefix)
        .setPrefixLen(UInt32Value.of(length))
        .build();
  }

  @Test
  void allowAndDeny_onPaths_andEmptyPolicies() throws Exception {
    RbacEngine allow = allowIf(path("/svc.A/"));
    assertThat(allow.allows(request("/svc.A/Call"))).isTrue();
    assertThat(allow.allows(request("/svc.B/Call"))).isFalse();
    RbacEngine deny =
        engine(RBAC.Action.DENY, path("/svc.A/"), Principal.newBuilder().setAny(true).build());
    assertThat(deny.allows(request("/svc.A/Call"))).isFalse();
    assertThat(deny.matchingPolicy(request("/svc.A/Call"))).isEqualTo("p");
    assertThat(deny.allows(request("/svc.B/Call"))).isTrue();

    // No policies: ALLOW allows nothing, DENY denies nothing. LOG enforces nothing at all.
    assertThat(RbacParser.parse(RBAC.getDefaultInstance(), "rules").allows(request("/a/b")))
        .isFalse();
    assertThat(
            RbacParser.parse(RBAC.newBuilder().setAction(RBAC.Action.DENY).build(), "rules")
                .allows(request("/a/b")))
        .isTrue();
    assertThat(RbacParser.parse(RBAC.newBuilder().setAction(RBAC.Action.LOG).build(), "rules"))
        .isNull();
  }

  @Test
  void andOrNot_combinePermissions() throws Exception {
    Permission aButNotSlow =
        Permission.newBuilder()
            .setAndRules(
                Permission.Set.newBuilder()
                    .addRules(path("/svc.A/"))
                    .addRules(Permission.newBuilder().setNotRule(path("/svc.A/Slow"))))
            .build();
    Permission aOrB =
        Permission.newBuilder()
            .setOrRules(
                Permission.Set.newBuilder().addRules(path("/svc.A/")).addRules(path("/svc.B/")))
            .build();
    assertThat(allowIf(aButNotSlow).allows(request("/svc.A/Call"))).isTrue();
    assertThat(allowIf(aButNotSlow).allows(request("/svc.A/Slow"))).isFalse();
    assertThat(allowIf(aOrB).allows(request("/svc.B/Call"))).isTrue();
    assertThat(allowIf(aOrB).allows(request("/svc.C/Call"))).isFalse();
  }

  @Test
  void headers_asA41HasThem() throws Exception {
    Metadata headers = new Metadata();
    Metadata.Key<String> role = Metadata.Key.of("x-role", Metadata.ASCII_STRING_MARSHALLER);
    headers.put(role, "a");
    headers.put(role, "b");
    headers.put(
        Metadata.Key.of("x-id-bin", Metadata.BINARY_BYTE_MARSHALLER), new byte[] {'a', 'b'});
    RbacRequest call = request("/svc.A/Call", headers, null);

    // Several values joined by ","; binary ones in base64; names are case-insensitive.
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName("X-Role").setExactMatch("a,b")))
                .allows(call))
        .isTrue();
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName("x-id-bin").setExactMatch("YWI=")))
                .allows(call))
        .isTrue();
    // Pseudo-headers: :path is the path, :method POST, :authority and host the authority.
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName(":path").setPrefixMatch("/svc.A/")))
                .allows(call))
        .isTrue();
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName(":method").setExactMatch("POST")))
                .allows(call))
        .isTrue();
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName("host").setSuffixMatch(":443")))
                .allows(call))
        .isTrue();
    // Hop-by-hop headers are never present, even if the metadata has them.
    headers.put(Metadata.Key.of("te", Metadata.ASCII_STRING_MARSHALLER), "trailers");
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName("te").setPresentMatch(true)))
                .allows(call))
        .isFalse();
    // Absent: only present_match sees it; invert_match does not make other matchers match it.
    assertThat(
            allowIf(header(HeaderMatcher.newBuilder().setName("x-none").setPresentMatch(false)))
                .allows(call))
        .isTrue();
    assertThat(
            allowIf(
                    header(
                        HeaderMatcher.newBuilder()
                            .setName("x-none")
                            .setExactMatch("a")
                            .setInvertMatch(true)))
                .allows(call))
        .isFalse();
    assertThat(
            allowIf(
                    header(
                        HeaderMatcher.newBuilder()
                            .setName("x-role")
                            .setSafeRegexMatch(RegexMatcher.newBuilder().setRegex("[ab],[ab]"))))
                .allows(call))
        .isTrue();
  }

  @Test
  void addressesAndPorts() throws Exception {
    assertThat(
            allowIf(Principal.newBuilder().setSourceIp(cidr("127.0.0.0", 24)).build())
                .allows(request("/a/b")))
        .isTrue();
    assertThat(
            allowIf(Principal.newBuilder().setRemoteIp(cidr("127.0.0.8", 32)).build())
                .allows(request("/a/b")))
        .isFalse();
    assertThat(
            allowIf(Principal.newBuilder().setDirectRemoteIp(cidr("127.0.0.6", 31)).build())
                .allows(request("/a/b")))
        .isTrue();
    assertThat(
            allowIf(Permission.newBuilder().setDestinationIp(cidr("127.0.0.1", 32)).build())
                .allows(request("/a/b")))
        .isTrue();
    assertThat(
            allowIf(Permission.newBuilder().setDestinationPort(8443).build())
                .allows(request("/a/b")))
        .isTrue();
    assertThat(
            allowIf(Permission.newBuilder().setDestinationPort(8080).build())
                .allows(request("/a/b")))
        .isFalse();
    // requested_server_name is "" (A41): matches only a matcher that takes "".
    assertThat(
            allowIf(Permission.newBuilder().setRequestedServerName(prefix("")).build())
                .allows(request("/a/b")))
        .isTrue();
    assertThat(
            allowIf(Permission.newBuilder().setRequestedServerName(prefix("x")).build())
                .allows(request("/a/b")))
        .isFalse();
  }

  @Test
  void authenticated_matchesUriSansFirst_thenDns_thenSubject_andNeedsTls() throws Exception {
    X509Certificate withUri = certificate("CN=svc", "uri:spiffe://mesh/ns/a/sa/b,dns:b.example");
    X509Certificate withDns = certificate("CN=svc", "dns:b.example");
    X509Certificate bare = certificate("CN=legacy,O=Tern", null);
    RbacEngine spiffe = allowIf(authenticated(prefix("spiffe://mesh/ns/a/")));
    RbacEngine dns =
        allowIf(authenticated(StringMatcher.newBuilder().setExact("b.example").build()));
    RbacEngine subject =
        allowIf(authenticated(StringMatcher.newBuilder().setExact("CN=legacy,O=Tern").build()));
    RbacEngine noCertificate =
        allowIf(authenticated(StringMatcher.newBuilder().setExact("").build()));
    RbacEngine anyTls =
        allowIf(
            Principal.newBuilder()
                .setAuthenticated(Principal.Authenticated.getDefaultInstance())
                .build());

    assertThat(spiffe.allows(request("/a/b", new Metadata(), session(withUri)))).isTrue();
    // A41: DNS names count only when there is no URI name.
    assertThat(dns.allows(request("/a/b", new Metadata(), session(withUri)))).isFalse();
    assertThat(dns.allows(request("/a/b", new Metadata(), session(withDns)))).isTrue();
    assertThat(subject.allows(request("/a/b", new Metadata(), session(bare)))).isTrue();
    assertThat(subject.allows(request("/a/b", new Metadata(), session(withDns)))).isFalse();
    assertThat(noCertificate.allows(request("/a/b", new Metadata(), session(null)))).isTrue();
    assertThat(anyTls.allows(request("/a/b", new Metadata(), session(null)))).isTrue();
    // Without TLS nothing authenticated matches, not even "".
    assertThat(noCertificate.allows(request("/a/b"))).isFalse();
    assertThat(anyTls.allows(request("/a/b"))).isFalse();
  }

  @Test
  void metadataNeverMatches_evenUnderNot() throws Exception {
    Principal metadata =
        Principal.newBuilder()
            .setMetadata(
                io.envoyproxy.envoy.type.matcher.v3.MetadataMatcher.newBuilder().setFilter("f"))
            .build();
    assertThat(allowIf(metadata).allows(request("/a/b"))).isFalse();
    assertThat(allowIf(Principal.newBuilder().setNotId(metadata).build()).allows(request("/a/b")))
        .isTrue();
  }

  @Test
  void whatA41LeavesOut_isRefusedNamingTheField() {
    assertThatThrownBy(
            () ->
                allowIf(
                    header(
                        HeaderMatcher.newBuilder().setName("grpc-timeout").setPresentMatch(true))))
        .isInstanceOf(RbacException.class)
        .hasMessage(
            "rules.policies[\"p\"].permissions[0].header.name: \"grpc-timeout\" cannot be matched (A41)");
    assertThatThrownBy(
            () ->
                allowIf(
                    header(HeaderMatcher.newBuilder().setName(":scheme").setPresentMatch(true))))
        .hasMessageContaining(".header.name: \":scheme\" cannot be matched");
    assertThatThrownBy(
            () ->
                RbacParser.parse(
                    RBAC.newBuilder()
                        .putPolicies(
                            "cel",
                            Policy.newBuilder()
                                .addPermissions(Permission.newBuilder().setAny(true))
                                .addPrincipals(Principal.newBuilder().setAny(true))
                                .setCondition(
                                    com.google.api.expr.v1alpha1.Expr.getDefaultInstance())
                                .build())
                        .build(),
                    "rules"))
        .hasMessage("rules.policies[\"cel\"].condition: CEL conditions are not supported");
    assertThatThrownBy(
            () ->
                allowIf(
                    Permission.newBuilder()
                        .setNotRule(
                            Permission.newBuilder()
                                .setUriTemplate(
                                    io.envoyproxy.envoy.config.core.v3.TypedExtensionConfig
                                        .getDefaultInstance()))
                        .build()))
        .hasMessage("rules.policies[\"p\"].permissions[0].not_rule.uri_template: not supported");
    assertThatThrownBy(
            () -> allowIf(Principal.newBuilder().setSourceIp(cidr("localhost", 8)).build()))
        .hasMessage(
            "rules.policies[\"p\"].principals[0].source_ip.address_prefix: \"localhost\" is not an IP address");
    assertThatThrownBy(() -> allowIf(Permission.getDefaultInstance()))
        .hasMessage("rules.policies[\"p\"].permissions[0]: no rule is set");
  }

  @Test
  void anUnchangedPolicy_isEqual() throws Exception {
    Permission regex =
        Permission.newBuilder()
            .setUrlPath(
                PathMatcher.newBuilder()
                    .setPath(
                        StringMatcher.newBuilder()
                            .setSafeRegex(RegexMatcher.newBuilder().setRegex("/svc\\..*"))))
            .build();
    assertThat(allowIf(regex)).isEqualTo(allowIf(regex));
    assertThat(allowIf(regex)).isNotEqualTo(allowIf(path("/svc.")));
  }

  private static Principal authenticated(StringMatcher name) {
    return Principal.newBuilder()
        .setAuthenticated(Principal.Authenticated.newBuilder().setPrincipalName(name))
        .build();
  }

  /** A TLS session whose peer presented {@code certificate} (none if null). */
  private static SSLSession session(X509Certificate certificate) {
    Map<String, Object> values = new HashMap<>();
    return (SSLSession)
        Proxy.newProxyInstance(
            RbacEngineTest.class.getClassLoader(),
            new Class<?>[] {SSLSession.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getPeerCertificates" -> {
                    if (certificate == null) {
                      throw new SSLPeerUnverifiedException("no client certificate");
                    }
                    yield new Certificate[] {certificate};
                  }
                  case "getValue" -> values.get((String) args[0]);
                  case "putValue" -> values.put((String) args[0], args[1]);
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  /** A self-signed certificate made by the JDK's keytool, with subject {@code dname}. */
  private static X509Certificate certificate(String dname, String sans) throws Exception {
    Path dir = Files.createTempDirectory("tern-rbac-");
    Path store = dir.resolve("k.p12");
    try {
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      List<String> command =
          new java.util.ArrayList<>(
              List.of(
                  keytool,
                  "-genkeypair",
                  "-alias",
                  "k",
                  "-keyalg",
                  "EC",
                  "-dname",
                  dname,
                  "-validity",
                  "2",
                  "-keystore",
                  store.toString(),
                  "-storetype",
                  "PKCS12",
                  "-storepass",
                  "tern-test",
                  "-keypass",
                  "tern-test"));
      if (sans != null) {
        command.addAll(List.of("-ext", "SAN=" + sans));
      }
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes());
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
      assertThat(process.exitValue()).as("keytool: " + output).isZero();
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(store)) {
        keyStore.load(in, "tern-test".toCharArray());
      }
      return (X509Certificate) keyStore.getCertificate("k");
    } finally {
      Files.deleteIfExists(store);
      Files.deleteIfExists(dir);
    }
  }
}
