/**
 * Not API: implementation details that may change at any time.
 *
 * <p>Classes here are public only so that Tern's own modules (transports, protobuf support) can
 * share them. Applications must not depend on them.
 *
 * <p>Here live the channel ({@code .channel}), call ({@code .client}), retry ({@code .retry}) and
 * server ({@code .server}) state machines and the builder bases that assemble them ({@link
 * dev.tern.internal.channel.AbstractManagedChannelBuilder}, {@link
 * dev.tern.internal.server.AbstractServerBuilder}), which Tern's transports extend. The wire
 * helpers those transports share are in {@code dev.tern.internal.wire}; the transport contracts
 * themselves are in {@code dev.tern.spi}, which depends on neither.
 */
package dev.tern.internal;
