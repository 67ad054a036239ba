/**
 * The client channel: target -> name resolver -> load balancer -> subchannels -> picker, each
 * call's configuration, the builder base the transports extend. Not API; may change at any time.
 *
 * <pre>
 * ManagedChannelImpl.newCall(method, options)
 *   -> the channel's interceptors (and binary log)
 *   -> ConfiguringChannel: the resolver's ConfigSelector, or the service config's method config
 *        (a DelayedCall records the call while no config is known, or to select with its headers)
 *   -> ClientCallImpl (dev.tern.internal.client), born configured
 *   -> RetryPolicyStreams (dev.tern.internal.retry), if its method config retries or hedges
 *   -> BalancerStreams: the picker's pick, or a wait for the next picker; with adaptive
 *        throttling, the picked subchannel's BackendThrottle admits the call or fails it at once;
 *        a traced call is picked for through PickLabels, which carries the metric labels the
 *        picker names to the attempt's tracers
 *   -> CallCredentialsApplier -> the transport's stream
 * </pre>
 *
 * <p>Threads: resolver results, balancer updates, subchannel states and idle mode all run in the
 * channel's {@link dev.tern.SynchronizationContext} (ChannelLifecycle); new configurations and
 * pickers are published from there (each a volatile field) and the calls that waited for them go on
 * in that context. Calls read them lock-free on the application's thread.
 *
 * <p>Layering: channel -> retry -> client; the channel imports both, nothing imports the channel
 * but the transports' builders (see {@code tools/java/package-rules.txt}).
 */
package dev.tern.internal.channel;
