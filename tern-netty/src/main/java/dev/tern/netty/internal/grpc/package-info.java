/**
 * gRPC on HTTP/2, the parts both ends share: the outbound header blocks as the engine's field
 * arrays ({@link dev.tern.netty.internal.grpc.GrpcFields}: requests for the client; responses,
 * trailers and HTTP error answers for the server) and what both read off the wire the same way
 * ({@link dev.tern.netty.internal.grpc.GrpcWire}: gRPC's content types, {@code -bin} names,
 * metadata as text, HTTP/2 error names).
 *
 * <p>Threads: stateless but for {@code GrpcFields}' one shared response block, replaced whole;
 * everything here may be called from any thread. Uses {@code http2} for error names; never the
 * client, the server, the exchanges or the write path (tools/java/package-rules.txt).
 */
package dev.tern.netty.internal.grpc;
