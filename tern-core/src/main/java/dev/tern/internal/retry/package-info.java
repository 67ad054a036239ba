/**
 * Retries and hedging (gRFC A6): the layer between a call and the balancer's picks. Not API; may
 * change at any time.
 *
 * <pre>
 * in:  RetryPolicyStreams.newStream(pick arguments, method config, deadline, executor)
 *        from a ClientCallImpl whose method config has a retry or hedging policy
 * out: a RetryingClientStream, whose attempts' streams come from the layer below
 *        (a ClientStreamProvider: the channel's balancer streams)
 *      AttemptPlan: the pure decisions (retry or not, when, throttle, pushback; none after an
 *        attempt the channel's adaptive throttling did not send)
 *      RetryBuffer / RetryThrottle: shared by a channel's calls (per service config for the throttle)
 * </pre>
 *
 * <p>Threads: the call's operations arrive on the application's thread (cancel from any); each
 * attempt reports on its transport's thread; retry and hedge timers fire on the channel's
 * scheduler. A RetryingClientStream's lock is never held while calling a stream, listener or timer;
 * its events reach the call one at a time.
 *
 * <p>Layering: it imports the call's package ({@code dev.tern.internal.client}) but never the
 * channel ({@code dev.tern.internal.channel}), which imports it.
 */
package dev.tern.internal.retry;
