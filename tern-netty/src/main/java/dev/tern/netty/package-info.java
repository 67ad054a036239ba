/**
 * The HTTP/2 transport of Tern, on Netty: {@link dev.tern.netty.NettyServerBuilder} and {@link
 * dev.tern.netty.NettyChannelBuilder}. With this module on the class path, {@code
 * ServerBuilder.forPort(port)} and {@code ManagedChannelBuilder.forAddress(host, port)} find it
 * without naming it.
 */
package dev.tern.netty;
