/**
 * Channelz: what a process's channels, subchannels, servers and sockets are doing, read on demand
 * by tools (the {@code grpc.channelz.v1.Channelz} service in tern-services serves it).
 *
 * <p>The runtime and the transports write it: each instrumented object registers an {@link
 * dev.tern.channelz.Instrumented} node with the process-wide {@link dev.tern.channelz.Channelz}
 * registry while it lives, counts calls with a {@link dev.tern.channelz.CallCounter} and logs state
 * changes to a {@link dev.tern.channelz.TraceLog}. Readers take immutable snapshots ({@link
 * dev.tern.channelz.ChannelStats}, {@link dev.tern.channelz.ServerStats}, {@link
 * dev.tern.channelz.SocketStats}) only when asked, so the call path pays a couple of counter
 * increments and nothing else.
 *
 * <p>Threads: everything here is thread-safe. Counters and trace logs are written from the call
 * path and the transports' threads, the registry by each object's owner as it comes and goes;
 * snapshots are taken on the reader's thread. The snapshot records are immutable.
 *
 * <p>Imports only the API ({@code dev.tern}); the SPI names it for the sockets transports report,
 * and tern-core's {@code module-info} exports it to everyone, so tern-services can serve it.
 */
package dev.tern.channelz;
