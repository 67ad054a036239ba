/**
 * The server side of the bridge: grpc-java's {@code io.grpc} server API over a Tern server. Not
 * API.
 *
 * <pre>
 * io.grpc.ServerBuilder.forPort / Grpc.newServerBuilderForPort
 *   -&gt; TernServerProvider (ServiceLoader)
 *   -&gt; TernServerBuilder   each option to Tern's (keepalive and connection age to NettyServerBuilder)
 *   -&gt; TernServer          life cycle and addresses of the Tern server, io.grpc services listed
 * each io.grpc service --Services--&gt; a Tern service, under the io.grpc interceptors and binary log
 *   a call: TernServerCall (the io.grpc ServerCall) + the handler's listener, run inside the
 *   io.grpc.Context CallContexts makes (the call's deadline and cancellation)
 * HandlerRegistryAdapter: an io.grpc fallback registry, asked per lookup
 * GrpcJavaServerTracers: grpc-java's server stream tracers on each stream
 * GrpcJavaTransportFilter: a grpc-java transport filter on each connection
 * </pre>
 *
 * <p>Threads: the handler and its listener run where Tern runs a server call's callbacks (the
 * server's executor, one at a time); the handler calls {@code TernServerCall} from one thread at a
 * time. The one thread of its own is {@code CallContexts}' daemon scheduler, shared by every server
 * of the JVM, which expires contexts at their deadline. Builders are configured from one thread;
 * the rest is thread-safe.
 *
 * <p>Uses {@code convert}, Tern's public API and {@code dev.tern.netty}'s server builder; never the
 * client side or the resolvers ({@code tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.server;
