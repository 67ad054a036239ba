package dev.tern.interop;

import java.nio.file.Path;

/**
 * Envoy's static configurations for {@link Http3EnvoyInteropTest}, in Envoy's v3 API: an admin
 * interface and one listener on port 0 of 127.0.0.1, an HTTP connection manager whose statistics
 * are named {@code http.front.*}, one route to one cluster of one endpoint on 127.0.0.1. The route
 * has no timeout of its own ({@code timeout: 0s}, streaming calls run as long as they like) and
 * takes each call's {@code grpc-timeout} as its deadline. Stateless.
 */
final class EnvoyConfigs {
  private EnvoyConfigs() {}

  /**
   * The whole configuration; its {@code %s} take, in order: the listener's address and options, the
   * connection manager's codec, the route's cluster, the filter chain's transport socket, the
   * cluster's name, its protocol options, its transport socket, its name again, the endpoint's port
   * and protocol.
   */
  private static final String CONFIG =
      """
      admin:
        address: {socket_address: {address: 127.0.0.1, port_value: 0}}
      static_resources:
        listeners:
        - name: front
      %s
          filter_chains:
          - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: front
                codec_type: %s
                route_config:
                  virtual_hosts:
                  - name: all
                    domains: ["*"]
                    routes:
                    - match: {prefix: "/"}
                      route:
                        cluster: %s
                        timeout: 0s
                        max_stream_duration: {grpc_timeout_header_max: 0s}
                http_filters:
                - name: envoy.filters.http.router
                  typed_config:
                    "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
      %s
        clusters:
        - name: %s
          type: STATIC
          connect_timeout: 10s
          typed_extension_protocol_options:
            envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
              "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
              explicit_http_config: {%s: {}}
      %s
          load_assignment:
            cluster_name: %s
            endpoints:
            - lb_endpoints:
              - endpoint:
                  address:
                    socket_address: {address: 127.0.0.1, port_value: %d, protocol: %s}
      """;

  /**
   * Plaintext HTTP/2 in (a TCP listener), HTTP/3 out: cluster {@code cluster} calls the server on
   * UDP {@code port} over QUIC, checking its certificate for localhost against {@code trustedCa}.
   */
  static String http2ToQuic(String cluster, int port, Path trustedCa) {
    String upstreamQuic =
        """
            transport_socket:
              name: envoy.transport_sockets.quic
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.transport_sockets.quic.v3.QuicUpstreamTransport
                upstream_tls_context:
                  sni: localhost
                  common_tls_context:
                    validation_context:
                      trusted_ca: {filename: "%s"}\
        """
            .formatted(trustedCa.toAbsolutePath());
    return CONFIG.formatted(
        "    address: {socket_address: {address: 127.0.0.1, port_value: 0}}",
        "HTTP2",
        cluster,
        "",
        cluster,
        "http3_protocol_options",
        upstreamQuic,
        cluster,
        port,
        "UDP");
  }

  /**
   * HTTP/3 in (a QUIC listener on UDP, TLS with {@code certificate} and {@code key}), plaintext
   * HTTP/2 out: cluster {@code cluster} calls the server on TCP {@code port}.
   */
  static String quicToHttp2(String cluster, int port, Path certificate, Path key) {
    String listener =
        """
            address: {socket_address: {address: 127.0.0.1, port_value: 0, protocol: UDP}}
            udp_listener_config:
              quic_options: {}\
        """;
    String downstreamQuic =
        """
              transport_socket:
                name: envoy.transport_sockets.quic
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.transport_sockets.quic.v3.QuicDownstreamTransport
                  downstream_tls_context:
                    common_tls_context:
                      tls_certificates:
                      - certificate_chain: {filename: "%s"}
                        private_key: {filename: "%s"}\
        """
            .formatted(certificate.toAbsolutePath(), key.toAbsolutePath());
    return CONFIG.formatted(
        listener,
        "HTTP3",
        cluster,
        downstreamQuic,
        cluster,
        "http2_protocol_options",
        "",
        cluster,
        port,
        "TCP");
  }
}
