package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.config.core.v3.TransportSocket;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateProviderPluginInstance;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.CommonTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.SubjectAltNameMatcher;
import io.envoyproxy.envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext;
import io.envoyproxy.envoy.type.matcher.v3.StringMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;

/**
 * Validates the {@code transport_socket} of a filter chain (DownstreamTlsContext) or a cluster
 * (UpstreamTlsContext) as A29 reads it: keys, certificates and roots come only from certificate
 * provider instances the bootstrap names; inline material, SDS and the checks gRPC does not make
 * are rejected, naming the field. Stateless.
 */
// A29 reads match_subject_alt_names, which Envoy deprecates for match_typed_subject_alt_names, and
// names the deprecated certificate-provider fields to reject them.
@SuppressWarnings("deprecation")
final class TlsContextValidator {
  static final String DOWNSTREAM_TYPE_URL =
      "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext";
  static final String UPSTREAM_TYPE_URL =
      "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext";

  /** The longest {@code sni} accepted, as in Envoy (A101). */
  private static final int MAX_SNI_LENGTH = 255;

  private TlsContextValidator() {}

  /**
   * A filter chain's TLS.
   *
   * @param field the transport socket's path, for messages
   * @param instances the bootstrap's certificate provider instance names
   */
  static XdsTlsContext downstream(TransportSocket socket, String field, Set<String> instances)
      throws XdsResourceException {
    DownstreamTlsContext tls =
        unpack(socket, field, DOWNSTREAM_TYPE_URL, DownstreamTlsContext.class);
    String prefix = field + ".typed_config.";
    if (tls.getRequireSni().getValue()) {
      throw new XdsResourceException(prefix + "require_sni: not supported");
    }
    if (tls.getOcspStaplePolicy() != DownstreamTlsContext.OcspStaplePolicy.LENIENT_STAPLING) {
      throw new XdsResourceException(
          prefix + "ocsp_staple_policy: only LENIENT_STAPLING is supported");
    }
    CommonTlsContext common = tls.getCommonTlsContext();
    String commonField = prefix + "common_tls_context";
    String identity = identity(common, commonField, instances);
    if (identity == null) {
      throw new XdsResourceException(
          commonField + ".tls_certificate_provider_instance: missing (a server needs its key)");
    }
    CertificateValidationContext validation = validationContext(common, commonField);
    if (validation != null && validation.hasSystemRootCerts()) {
      throw new XdsResourceException(
          commonField + ".validation_context.system_root_certs: not supported on servers (A82)");
    }
    String roots = validation == null ? null : roots(validation, commonField, instances);
    boolean require = tls.getRequireClientCertificate().getValue();
    if (require && roots == null) {
      throw new XdsResourceException(
          prefix
              + "require_client_certificate: set, but the common_tls_context has no"
              + " ca_certificate_provider_instance to check client certificates with");
    }
    return new XdsTlsContext(identity, roots, require, List.of());
  }

  /** A cluster's TLS. */
  static XdsTlsContext upstream(TransportSocket socket, String field, Set<String> instances)
      throws XdsResourceException {
    UpstreamTlsContext tls = unpack(socket, field, UPSTREAM_TYPE_URL, UpstreamTlsContext.class);
    String commonField = field + ".typed_config.common_tls_context";
    CommonTlsContext common = tls.getCommonTlsContext();
    String identity = identity(common, commonField, instances);
    CertificateValidationContext validation = validationContext(common, commonField);
    String roots = validation == null ? null : roots(validation, commonField, instances);
    // A82: the system's roots when there is no instance (an instance takes precedence).
    boolean systemRoots =
        roots == null
            && validation != null
            && validation.hasSystemRootCerts()
            && XdsFeatures.current().systemRootCerts();
    if (roots == null && !systemRoots) {
      throw new XdsResourceException(
          commonField
              + ": no ca_certificate_provider_instance or system_root_certs (a client must check"
              + " the server's certificate)");
    }
    String sni = tls.getSni();
    if (sni.length() > MAX_SNI_LENGTH) {
      throw new XdsResourceException(
          field + ".typed_config.sni: longer than " + MAX_SNI_LENGTH + " characters");
    }
    if (!sni.isEmpty()) {
      try {
        new SNIHostName(sni);
      } catch (IllegalArgumentException e) {
        throw new XdsResourceException(
            field + ".typed_config.sni: \"" + sni + "\" is not a host name: " + e.getMessage());
      }
    }
    return new XdsTlsContext(
        identity,
        roots,
        false,
        sanMatchers(validation, commonField + ".validation_context"),
        sni,
        tls.getAutoHostSni(),
        tls.getAutoSniSanValidation(),
        systemRoots);
  }

  private static <T extends Message> T unpack(
      TransportSocket socket, String field, String typeUrl, Class<T> type)
      throws XdsResourceException {
    if (!socket.hasTypedConfig()) {
      throw new XdsResourceException(field + ".typed_config: missing");
    }
    Any config = socket.getTypedConfig();
    if (!config.getTypeUrl().equals(typeUrl)) {
      throw new XdsResourceException(
          field + ".typed_config: " + config.getTypeUrl() + " is not supported (need " + typeUrl);
    }
    try {
      return config.unpack(type);
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(field + ".typed_config: cannot be decoded: " + e.getMessage());
    }
  }

  /** The identity instance, after rejecting the other ways of giving a key. */
  private static String identity(CommonTlsContext common, String field, Set<String> instances)
      throws XdsResourceException {
    if (common.getTlsCertificatesCount() > 0) {
      throw new XdsResourceException(
          field + ".tls_certificates: inline certificates are not supported");
    }
    if (common.getTlsCertificateSdsSecretConfigsCount() > 0) {
      throw new XdsResourceException(
          field + ".tls_certificate_sds_secret_configs: SDS is not supported");
    }
    if (common.hasTlsCertificateCertificateProvider()
        || common.hasTlsCertificateCertificateProviderInstance()) {
      throw new XdsResourceException(
          field
              + ".tls_certificate_certificate_provider(_instance): deprecated, use"
              + " tls_certificate_provider_instance");
    }
    if (common.hasCustomHandshaker()) {
      throw new XdsResourceException(field + ".custom_handshaker: not supported");
    }
    if (common.hasCustomTlsCertificateSelector()) {
      throw new XdsResourceException(field + ".custom_tls_certificate_selector: not supported");
    }
    if (!common.hasTlsCertificateProviderInstance()) {
      return null;
    }
    return instance(
        common.getTlsCertificateProviderInstance(),
        field + ".tls_certificate_provider_instance",
        instances);
  }

  /** The validation context, or null if there is none. */
  private static CertificateValidationContext validationContext(
      CommonTlsContext common, String field) throws XdsResourceException {
    return switch (common.getValidationContextTypeCase()) {
      case VALIDATION_CONTEXT -> common.getValidationContext();
      case COMBINED_VALIDATION_CONTEXT -> {
        CommonTlsContext.CombinedCertificateValidationContext combined =
            common.getCombinedValidationContext();
        if (combined.hasValidationContextSdsSecretConfig()) {
          throw new XdsResourceException(
              field
                  + ".combined_validation_context.validation_context_sds_secret_config: SDS is not"
                  + " supported");
        }
        if (combined.hasValidationContextCertificateProvider()
            || combined.hasValidationContextCertificateProviderInstance()) {
          throw new XdsResourceException(
              field
                  + ".combined_validation_context.validation_context_certificate_provider"
                  + "(_instance): deprecated, use"
                  + " default_validation_context.ca_certificate_provider_instance");
        }
        yield combined.getDefaultValidationContext();
      }
      case VALIDATIONCONTEXTTYPE_NOT_SET -> null;
      default ->
          throw new XdsResourceException(
              field
                  + "."
                  + common.getValidationContextTypeCase().name().toLowerCase(java.util.Locale.ROOT)
                  + ": not supported");
    };
  }

  /** The roots instance of {@code v}, after rejecting the checks gRPC does not make. */
  private static String roots(CertificateValidationContext v, String field, Set<String> instances)
      throws XdsResourceException {
    String path = field + ".validation_context";
    if (v.hasTrustedCa()) {
      throw new XdsResourceException(path + ".trusted_ca: inline roots are not supported");
    }
    if (v.getVerifyCertificateSpkiCount() > 0) {
      throw new XdsResourceException(path + ".verify_certificate_spki: not supported");
    }
    if (v.getVerifyCertificateHashCount() > 0) {
      throw new XdsResourceException(path + ".verify_certificate_hash: not supported");
    }
    if (v.getRequireSignedCertificateTimestamp().getValue()) {
      throw new XdsResourceException(path + ".require_signed_certificate_timestamp: not supported");
    }
    if (v.hasCrl()) {
      throw new XdsResourceException(path + ".crl: not supported");
    }
    if (v.hasCustomValidatorConfig()) {
      throw new XdsResourceException(path + ".custom_validator_config: not supported");
    }
    if (!v.hasCaCertificateProviderInstance()) {
      return null;
    }
    return instance(
        v.getCaCertificateProviderInstance(),
        path + ".ca_certificate_provider_instance",
        instances);
  }

  private static String instance(
      CertificateProviderPluginInstance instance, String field, Set<String> instances)
      throws XdsResourceException {
    String name = instance.getInstanceName();
    if (!instances.contains(name)) {
      throw new XdsResourceException(
          field
              + ".instance_name: \""
              + name
              + "\" is not a certificate_providers instance of the bootstrap "
              + instances);
    }
    return name;
  }

  /**
   * The SAN matchers of {@code v}: the typed ones ({@code match_typed_subject_alt_names}) when
   * there are any, as Envoy ignores the deprecated untyped list then, else the untyped ones.
   */
  private static List<XdsTlsContext.SanMatcher> sanMatchers(
      CertificateValidationContext v, String field) throws XdsResourceException {
    List<XdsTlsContext.SanMatcher> sans = new ArrayList<>();
    for (int i = 0; i < v.getMatchTypedSubjectAltNamesCount(); i++) {
      SubjectAltNameMatcher typed = v.getMatchTypedSubjectAltNames(i);
      String path = field + ".match_typed_subject_alt_names[" + i + "]";
      XdsTlsContext.SanType type =
          switch (typed.getSanType()) {
            case DNS -> XdsTlsContext.SanType.DNS;
            case URI -> XdsTlsContext.SanType.URI;
            case IP_ADDRESS -> XdsTlsContext.SanType.IP_ADDRESS;
            case EMAIL -> XdsTlsContext.SanType.EMAIL;
            default ->
                throw new XdsResourceException(
                    path
                        + ".san_type: "
                        + typed.getSanType()
                        + " is not supported (DNS, URI, IP_ADDRESS or EMAIL)");
          };
      if (!typed.hasMatcher()) {
        throw new XdsResourceException(path + ".matcher: missing");
      }
      sans.add(sanMatcher(typed.getMatcher(), path + ".matcher", type));
    }
    if (!sans.isEmpty()) {
      return sans;
    }
    for (int i = 0; i < v.getMatchSubjectAltNamesCount(); i++) {
      sans.add(
          sanMatcher(
              v.getMatchSubjectAltNames(i),
              field + ".match_subject_alt_names[" + i + "]",
              XdsTlsContext.SanType.ANY));
    }
    return sans;
  }

  private static XdsTlsContext.SanMatcher sanMatcher(
      StringMatcher m, String field, XdsTlsContext.SanType type) throws XdsResourceException {
    boolean ignoreCase = m.getIgnoreCase();
    XdsTlsContext.Kind kind;
    String value;
    switch (m.getMatchPatternCase()) {
      case EXACT -> {
        kind = XdsTlsContext.Kind.EXACT;
        value = m.getExact();
      }
      case PREFIX -> {
        kind = XdsTlsContext.Kind.PREFIX;
        value = m.getPrefix();
      }
      case SUFFIX -> {
        kind = XdsTlsContext.Kind.SUFFIX;
        value = m.getSuffix();
      }
      case CONTAINS -> {
        kind = XdsTlsContext.Kind.CONTAINS;
        value = m.getContains();
      }
      case SAFE_REGEX -> {
        String regex = m.getSafeRegex().getRegex();
        Pattern pattern = RouteValidator.compile(regex, field + ".safe_regex");
        return new XdsTlsContext.SanMatcher(
            XdsTlsContext.Kind.SAFE_REGEX, regex, pattern, false, type);
      }
      case MATCHPATTERN_NOT_SET ->
          throw new XdsResourceException(
              field + ": no match pattern (exact, prefix, suffix, contains or safe_regex)");
      default ->
          throw new XdsResourceException(
              field + ": " + m.getMatchPatternCase() + " is not supported");
    }
    if (value.isEmpty() && kind != XdsTlsContext.Kind.EXACT) {
      throw new XdsResourceException(
          field + "." + kind.name().toLowerCase(java.util.Locale.ROOT) + ": must not be empty");
    }
    return new XdsTlsContext.SanMatcher(kind, value, null, ignoreCase, type);
  }
}
