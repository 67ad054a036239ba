package dev.tern.xds;

import java.util.function.UnaryOperator;

/**
 * The {@code GRPC_XDS_EXPERIMENTAL_*} and {@code GRPC_EXPERIMENTAL_*} switches of grpc-java 1.79's
 * xDS that apply to what Tern implements, with grpc-java's defaults, except A87's switch, which
 * Tern turns on. Each is read once, from the environment variable, else the system property of the
 * same name (so that tests and launchers can set it). As in grpc-java, a switch that is on by
 * default is off when set to any non-empty value other than {@code true} (any case). Immutable;
 * thread-safe.
 *
 * @param ringHash {@code GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH} (default on): whether the {@code
 *     ring_hash_experimental} balancer is available, and so whether RING_HASH clusters work
 * @param leastRequest {@code GRPC_EXPERIMENTAL_ENABLE_LEAST_REQUEST} (default on; grpc-java also
 *     reads the system property {@code io.grpc.xds.experimentalEnableLeastRequest}): whether
 *     LEAST_REQUEST clusters are accepted (off: NACKed as an unsupported policy)
 * @param timeout {@code GRPC_XDS_EXPERIMENTAL_ENABLE_TIMEOUT} (default on): whether routes' and
 *     listeners' {@code max_stream_duration} become call timeouts (A31)
 * @param circuitBreaking {@code GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING} (default on): whether a
 *     cluster's {@code max_requests} limits its calls in flight
 * @param fallback {@code GRPC_EXPERIMENTAL_XDS_FALLBACK} (default on, as in grpc-java 1.79):
 *     whether the XdsClient uses the servers after the first of an {@code xds_servers} list (A71;
 *     off: only the first, for the top level and every authority)
 * @param sni {@code GRPC_EXPERIMENTAL_XDS_SNI} (default on, as in grpc-java 1.79): whether a
 *     cluster's UpstreamTlsContext chooses the TLS server name and may check the server's SANs
 *     against it (A101; off: the channel's authority is sent, as before A101)
 * @param systemRootCerts {@code GRPC_EXPERIMENTAL_XDS_SYSTEM_ROOT_CERTS} (default on, as in
 *     grpc-java 1.79): whether a cluster's {@code system_root_certs} checks servers against the
 *     JDK's trusted roots (A82; off: a cluster with no other roots is NACKed)
 * @param spiffeBundleMap {@code GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE} (off by default in grpc-java
 *     1.79 and grpc-go 1.85; on in Tern): whether a {@code file_watcher} instance's {@code
 *     spiffe_trust_bundle_map_file} checks peers against the bundle of their SPIFFE ID's trust
 *     domain (A87; off: the field is ignored, as those implementations do with the switch off)
 */
public record XdsFeatures(
    boolean ringHash,
    boolean leastRequest,
    boolean timeout,
    boolean circuitBreaking,
    boolean fallback,
    boolean sni,
    boolean systemRootCerts,
    boolean spiffeBundleMap) {
  static final String RING_HASH = "GRPC_XDS_EXPERIMENTAL_ENABLE_RING_HASH";
  static final String LEAST_REQUEST = "GRPC_EXPERIMENTAL_ENABLE_LEAST_REQUEST";
  static final String LEAST_REQUEST_PROPERTY = "io.grpc.xds.experimentalEnableLeastRequest";
  static final String TIMEOUT = "GRPC_XDS_EXPERIMENTAL_ENABLE_TIMEOUT";
  static final String CIRCUIT_BREAKING = "GRPC_XDS_EXPERIMENTAL_CIRCUIT_BREAKING";
  static final String FALLBACK = "GRPC_EXPERIMENTAL_XDS_FALLBACK";
  static final String SNI = "GRPC_EXPERIMENTAL_XDS_SNI";
  static final String SYSTEM_ROOT_CERTS = "GRPC_EXPERIMENTAL_XDS_SYSTEM_ROOT_CERTS";
  static final String SPIFFE_BUNDLE_MAP = "GRPC_EXPERIMENTAL_XDS_MTLS_SPIFFE";

  private static final XdsFeatures CURRENT = read(System::getenv, System::getProperty);

  /** The switches of this process, read when this class was first used. */
  public static XdsFeatures current() {
    return CURRENT;
  }

  /** The switches as {@code env} and then {@code properties} give them (null: not set). */
  static XdsFeatures read(UnaryOperator<String> env, UnaryOperator<String> properties) {
    String leastRequest = value(LEAST_REQUEST, env, properties);
    if (leastRequest == null) {
      leastRequest = properties.apply(LEAST_REQUEST_PROPERTY);
    }
    return new XdsFeatures(
        onByDefault(value(RING_HASH, env, properties)),
        onByDefault(leastRequest),
        onByDefault(value(TIMEOUT, env, properties)),
        onByDefault(value(CIRCUIT_BREAKING, env, properties)),
        onByDefault(value(FALLBACK, env, properties)),
        onByDefault(value(SNI, env, properties)),
        onByDefault(value(SYSTEM_ROOT_CERTS, env, properties)),
        onByDefault(value(SPIFFE_BUNDLE_MAP, env, properties)));
  }

  private static String value(
      String name, UnaryOperator<String> env, UnaryOperator<String> properties) {
    String value = env.apply(name);
    if (value == null) {
      value = properties.apply(name);
    }
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static boolean onByDefault(String value) {
    return value == null || value.isEmpty() || value.equalsIgnoreCase("true");
  }
}
