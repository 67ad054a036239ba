/**
 * The HTTP/3 server: a UDP socket under Netty's QUIC codec ({@code Http3Endpoint}, found by
 * tern-netty through {@code Http3TransportProvider}; clients' addresses validated with stateless
 * Retry, {@code RetryTokens}, once {@code AddressValidation} sees many unfinished handshakes), each
 * QUIC connection a server transport ({@code Http3ServerConnection}: the control streams, SETTINGS,
 * GOAWAY, the reset counts ({@code ResetWindow}) and the idle and age limits), each request stream
 * a call on the same {@code ServerStream} contract the HTTP/2 transport feeds ({@code
 * Http3RequestStream} on the event loop, {@code Http3ServerStream} for the application; {@code
 * StopSendingProbe} hears a client's cancel after its whole request). What HTTP/2's server does too
 * comes from tern-netty, not a copy: request validation and refusals, the outbound framer, gRPC's
 * header blocks; and from tern-core, the message deframer. Frames and QPACK are {@code
 * dev.tern.http3.internal.frame}'s. Not API.
 *
 * <p>Threads: each UDP socket and all its connections and streams run on one event loop of a shared
 * daemon NIO group; application calls reach it through {@code Http3ServerStream}.
 */
package dev.tern.http3.internal.server;
