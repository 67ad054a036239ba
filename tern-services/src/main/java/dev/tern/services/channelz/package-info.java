/**
 * The {@code grpc.channelz.v1.Channelz} service, which describes every Tern channel, subchannel,
 * server and socket of the process.
 *
 * <ul>
 *   <li>{@link dev.tern.services.channelz.ChannelzService}: the service; each request takes fresh
 *       snapshots from tern-core's process-wide {@link dev.tern.channelz.Channelz} registry and
 *       pages the listings.
 *   <li>{@code ChannelzMessages}: turns those snapshots into the {@code grpc.channelz.v1} messages.
 * </ul>
 *
 * <p>Threads: requests run on the serving call's executor; both classes are stateless, so any
 * number of requests may run at once. The snapshots come from the registry (tern-core's {@code
 * dev.tern.channelz}), which the channels and servers update from their own threads.
 */
package dev.tern.services.channelz;
