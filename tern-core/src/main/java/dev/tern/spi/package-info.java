/**
 * The transport SPI: what a transport (HTTP/2 on Netty, in-process, ...) implements so the runtime
 * can carry calls over it. Application code never needs this package.
 *
 * <p>Threading contract for streams: the runtime calls a stream's methods from one thread at a time
 * (the application's); the transport calls a stream listener's methods from one thread at a time
 * (its own) and never while holding a lock the runtime could need. The runtime hops to the call's
 * executor itself.
 */
package dev.tern.spi;
