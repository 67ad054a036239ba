/**
 * gRPC-Web and the Connect protocol on a Netty server's port ({@code dev.tern.web.WebProtocols}),
 * found by tern-netty through {@code dev.tern.netty.http.HttpServerProtocol}. The protocols'
 * machinery ({@code dev.tern.web.internal}) is not exported.
 */
module dev.tern.web {
  // The seam the protocols plug into (dev.tern.netty.http), and with it tern-core and Netty's
  // buffers, channels and HTTP codec. Also the deframer's buffer (dev.tern.netty.internal) and
  // tern-core's wire helpers (dev.tern.internal.wire), both exported to this module only.
  requires transitive dev.tern.netty;
  // Netty's futures, for the write listeners.
  requires io.netty.common;
  // Method schemas and JSON (the proto3 JSON mapping): automatic modules, named in their
  // manifests (see the pom for the lint this needs).
  requires dev.tern.protobuf;
  requires com.google.protobuf;
  requires com.google.protobuf.util;

  exports dev.tern.web;

  provides dev.tern.netty.http.HttpServerProtocol with
      dev.tern.web.internal.GrpcWebProtocol,
      dev.tern.web.internal.ConnectProtocol;
}
