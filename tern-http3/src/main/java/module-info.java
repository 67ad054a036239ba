/**
 * gRPC over HTTP/3 for Tern's Netty server ({@code NettyServerBuilder.enableHttp3()}) and channel
 * ({@code NettyChannelBuilder.enableHttp3()}), found by tern-netty through its {@code
 * Http3Transport} and {@code Http3Connector} seams. Nothing is exported: the frames and QPACK
 * ({@code dev.tern.http3.internal.frame}), what both sides share ({@code
 * dev.tern.http3.internal.common}), the server ({@code dev.tern.http3.internal.server}) and the
 * client ({@code dev.tern.http3.internal.client}) are internal.
 */
module dev.tern.http3 {
  // The seam, the Huffman code, request validation, framing and buffers it reuses (exported to
  // this module by name), and with them tern-core and Netty.
  requires dev.tern.netty;
  // Netty's QUIC codec (its native library comes in netty-codec-native-quic's jar).
  requires io.netty.codec.classes.quic;
  requires io.netty.common;
  requires io.netty.codec;
  requires java.logging;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  provides dev.tern.netty.internal.server.Http3Transport with
      dev.tern.http3.internal.server.Http3TransportProvider;
  provides dev.tern.netty.internal.client.Http3Connector with
      dev.tern.http3.internal.client.Http3ConnectorProvider;
}
