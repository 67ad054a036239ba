/**
 * gRPC-Web and the Connect protocol on a Tern Netty server's port, beside gRPC and to the same
 * services: {@link dev.tern.web.WebProtocols} configures them (which protocols, the CORS origins)
 * for {@code NettyServerBuilder.httpProtocols}; a server with this module on its class path and no
 * such call serves both with the defaults (found through {@link java.util.ServiceLoader}). The
 * protocols themselves are in {@code dev.tern.web.internal}, which is not exported.
 *
 * <p>Threads: {@link dev.tern.web.WebProtocols.Builder} is not thread-safe; the protocols it builds
 * are immutable and shared by every connection of the server.
 */
package dev.tern.web;
