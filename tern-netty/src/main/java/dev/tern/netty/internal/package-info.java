/**
 * The HTTP/2 transport's implementation: not API, may change at any time. Applications use {@link
 * dev.tern.netty.NettyChannelBuilder} and {@link dev.tern.netty.NettyServerBuilder}.
 */
package dev.tern.netty.internal;
