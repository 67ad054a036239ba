/**
 * Not API: implementation details that may change at any time.
 *
 * <p>Classes in {@code dev.tern.internal} and below are public only so that Tern's own modules
 * (transports, protobuf support) can share them; {@code module-info} exports them only to those
 * modules. Applications must not depend on them.
 *
 * <p>This package holds what both sides of a call share: the executors callbacks run on ({@link
 * dev.tern.internal.SerializingExecutor}, {@link dev.tern.internal.ThreadlessExecutor} for blocking
 * stubs, {@link dev.tern.internal.SharedExecutors} with the default {@link
 * dev.tern.internal.DefaultExecutor} and the event-loop wake-ups its one worker holds on one core,
 * {@link dev.tern.internal.HeldWakes}; {@link dev.tern.internal.BlockingThreads} for blocking
 * handlers), streaming read-ahead ({@link dev.tern.internal.ReadAhead}), tracer events and the
 * reconnect back-off. It imports none of its sub-packages. The sub-packages, each one job:
 *
 * <ul>
 *   <li>{@code channel}: the client channel (resolver, balancer, subchannels, each call's
 *       configuration) and the builder base transports extend;
 *   <li>{@code retry}: retries and hedging between a call and the balancer's picks;
 *   <li>{@code client}: the client call, born configured, and the streams it talks to;
 *   <li>{@code server}: the server runtime;
 *   <li>{@code config}: service configs and the JSON parser;
 *   <li>{@code lb} and {@code resolver}: the built-in balancers and name resolvers;
 *   <li>{@code wire}: the framing, header and buffer helpers transports share (depends on none of
 *       the above).
 * </ul>
 *
 * <p>{@code docs/architecture.md} draws the whole map.
 */
package dev.tern.internal;
