/**
 * Tern's HTTP/2 transport on Netty: {@code dev.tern.netty}'s builders, found by {@code
 * ServerBuilder.forPort} and {@code ManagedChannelBuilder.forTarget} through the providers below.
 * The transport's own machinery ({@code dev.tern.netty.internal.*}) is not exported, but for the
 * buffers tern-web shares ({@code internal.buffer}).
 */
module dev.tern.netty {
  requires transitive dev.tern.core;
  // The builders' signatures name Netty's event loops, channels and SSL contexts.
  requires transitive io.netty.handler;
  requires transitive io.netty.transport;
  // dev.tern.netty.http's signatures name buffers and HTTP headers.
  requires transitive io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.dns;
  requires transitive io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.resolver;
  requires io.netty.resolver.dns;
  requires java.logging;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;
  // Optional: the native transports are used only when their native library loads (see
  // EpollSupport, IoUringSupport); domain socket addresses need the unix classes. On the module
  // path nothing else requires them: add them, and the native jar's module (for example
  // io.netty.transport.epoll.linux.x86_64, which holds the library), with --add-modules.
  requires static io.netty.transport.classes.epoll;
  requires static io.netty.transport.classes.io_uring;
  requires static io.netty.transport.unix.common;

  exports dev.tern.netty;
  // The seam for protocols served beside gRPC on the same port (tern-web's gRPC-Web and Connect).
  exports dev.tern.netty.http;

  // The buffer over a ByteBuf that the deframer reads (NettyReadableBuffer), shared with
  // tern-web's protocols, which deframe request bodies the same way; not API. The other internal
  // packages (http2, client, server, exchange, grpc, write, io, resolver) are not exported at all.
  exports dev.tern.netty.internal.buffer to
      dev.tern.web,
      dev.tern.http3;
  // What tern-http3 reuses rather than copies: the Huffman code and header sink (http2), request
  // validation, the server's options and unread-response bounds (server), gRPC's header blocks
  // (grpc), outbound framing (write), event loops and connection age limits (io) and the client's
  // response handling (client).
  exports dev.tern.netty.internal.http2 to
      dev.tern.http3;
  exports dev.tern.netty.internal.server to
      dev.tern.http3;
  exports dev.tern.netty.internal.grpc to
      dev.tern.http3;
  exports dev.tern.netty.internal.write to
      dev.tern.http3;
  exports dev.tern.netty.internal.io to
      dev.tern.http3;
  // tern-http3's client: the seam (Http3Connector), the response header sink and status mapping,
  // and the request paths it shares with the HTTP/2 client.
  exports dev.tern.netty.internal.client to
      dev.tern.http3;

  uses dev.tern.netty.http.HttpServerProtocol;
  // HTTP/3 beside HTTP/2 (NettyServerBuilder.enableHttp3), provided by tern-http3.
  uses dev.tern.netty.internal.server.Http3Transport;
  // Channels over HTTP/3 (NettyChannelBuilder.enableHttp3), provided by tern-http3.
  uses dev.tern.netty.internal.client.Http3Connector;

  provides dev.tern.ManagedChannelProvider with
      dev.tern.netty.NettyChannelProvider;
  provides dev.tern.ServerProvider with
      dev.tern.netty.NettyServerProvider;
  provides dev.tern.NameResolverProvider with
      dev.tern.netty.NettyDnsNameResolverProvider,
      dev.tern.netty.internal.resolver.UdsNameResolverProvider.Unix,
      dev.tern.netty.internal.resolver.UdsNameResolverProvider.UnixAbstract;
}
