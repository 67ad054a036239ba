/**
 * The client side of the bridge: grpc-java's {@code io.grpc} channel API over a Tern channel. Not
 * API.
 *
 * <pre>
 * io.grpc.ManagedChannelBuilder.forTarget / Grpc.newChannelBuilder
 *   -&gt; TernChannelProvider (ServiceLoader, above grpc-java's transports' priority)
 *   -&gt; TernChannelBuilder      each option to the Tern builder's option of the same name
 *   -&gt; TernManagedChannel      the io.grpc interceptors, then
 *   -&gt; TernClientCall          one io.grpc call run as a Tern call, in the caller's io.grpc.Context
 *        CallCredentialsAdapter, convert.GrpcJavaTracerFactory: grpc-java's call credentials and
 *        stream tracers from the call options, run as Tern's
 * </pre>
 *
 * <p>Threads: none of its own. The channel and provider are thread-safe (as the Tern channel is),
 * the builder is configured from one thread, and a call is driven from one thread at a time; the
 * listener's callbacks come from Tern, serialized on the call's executor, with the call's {@code
 * io.grpc.Context} attached.
 *
 * <p>Uses {@code convert} for every value it hands across and {@code resolver} for targets of
 * schemes Tern has no resolver for, {@code balancer} for the policies only grpc-java's registry
 * has, {@code metrics} for the grpc-java metric sinks given to {@code addMetricSink}; never the
 * server side, nor anything of Tern's but its public API ({@code tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.client;
