/**
 * Tern's public API: channels, calls, servers, metadata, status, interceptors and credentials.
 *
 * <p>Types in this package are the contract users program against. Implementation lives in {@code
 * dev.tern.internal} (not API, may change at any time) and transports plug in through {@code
 * dev.tern.spi}.
 */
package dev.tern;
