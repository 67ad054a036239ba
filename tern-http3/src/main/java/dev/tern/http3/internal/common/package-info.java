/**
 * What tern-http3's server and client connections share above the frames: QUIC's TLS contexts from
 * Tern's credentials ({@code QuicTls}), the reader of the streams a peer opens ({@code
 * PeerStreamReader}: control, QPACK, push) and the opening of this end's control stream with its
 * SETTINGS ({@code LocalControlStream}). The client and server packages use it and never each
 * other. Not API.
 *
 * <p>Threads: stateless, but the stream reader, which runs on its connection's event loop.
 */
package dev.tern.http3.internal.common;
