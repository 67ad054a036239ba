/**
 * A client call, born configured: {@link dev.tern.internal.client.ClientCallImpl} and the streams
 * it talks to. Not API; may change at any time.
 *
 * <pre>
 * in:  ClientCallImpl(method, options, method config, ClientStreamProvider, CallSettings)
 *      application: start / request / sendMessage / halfClose / cancel
 * out: ClientStreamProvider.newStream(pick arguments, method config, deadline, executor)
 *        -> a ClientStream (maybe a DelayedClientStream that buffers, or a TracedClientStream)
 *      stream events -> ClientCallEvents -> the application's listener
 * client-side adaptive throttling (the channel's, per backend, used by its balancer streams):
 *      AdaptiveThrottling (the channel's settings) -> a BackendThrottle per subchannel
 *        (ThrottleWindow: its counts over two minutes) -> admit, or RESOURCE_EXHAUSTED at once;
 *        ThrottledClientStream counts how an admitted call ended
 * </pre>
 *
 * <p>Threads: the application calls the call from one thread at a time; stream events arrive on the
 * transport's thread and ClientCallEvents hands them to the call's executor through a serializing
 * executor (inline with a direct executor); the deadline timer runs on the channel's scheduler and
 * the context listener on the cancelling thread, both only cancel. A BackendThrottle is shared by
 * every call to its backend, from any thread, under one short lock of its own.
 *
 * <p>The bottom layer of the client: it imports neither the retry layer ({@code
 * dev.tern.internal.retry}) nor the channel ({@code dev.tern.internal.channel}), and nothing here
 * calls back into whoever made the call (see {@code tools/java/package-rules.txt}).
 */
package dev.tern.internal.client;
