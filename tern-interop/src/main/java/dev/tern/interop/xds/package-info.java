/**
 * Tern's programs for gRPC's xDS interop tests, as grpc's xDS test descriptions and grpc-java's
 * programs of the same names define them. Not shipped.
 *
 * <ul>
 *   <li>{@code bin/xds-test-client}: {@code XdsTestClient} sends RPCs at a constant rate ({@code
 *       RpcSender}) as {@code ClientConfig} says, counts them ({@code ClientStats}, one {@code
 *       StatsWatcher} per {@code GetClientStats} request) and serves the stats and configure
 *       services on its stats port ({@code ClientServices}).
 *   <li>{@code bin/xds-test-server}: {@code XdsTestServer} serves TestService, naming itself in its
 *       answers and obeying each call's {@code rpc-behavior} headers ({@code
 *       RpcBehaviorInterceptor}, {@code RpcBehavior}), and on its maintenance port the health
 *       service (and {@code XdsUpdateHealthService} to flip it), reflection and the admin services.
 * </ul>
 *
 * <p>Threads: {@code RpcSender} starts RPCs from one scheduler thread on a fixed clock, whatever
 * the RPCs in flight do; their ends arrive on the channel's executor and are counted by {@code
 * ClientStats}, which is thread-safe (as are the watchers it hands RPCs to). {@code ClientConfig}
 * is immutable and replaced whole when the configure service is called. The server's handlers and
 * interceptor run on its call executor.
 */
package dev.tern.interop.xds;
