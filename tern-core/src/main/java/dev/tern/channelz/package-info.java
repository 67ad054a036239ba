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
 */
package dev.tern.channelz;
