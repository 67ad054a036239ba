/**
 * Tern's public API: channels, calls, servers, metadata, status, interceptors and credentials.
 *
 * <p>Types in this package are the contract users program against. Implementation lives in {@code
 * dev.tern.internal} (not API, may change at any time) and transports plug in through {@code
 * dev.tern.spi}.
 *
 * <p>The rooms:
 *
 * <ul>
 *   <li>Client: {@link dev.tern.Channel} and {@link dev.tern.ManagedChannel} (built by {@link
 *       dev.tern.ManagedChannelBuilder}), {@link dev.tern.ClientCall} and its {@link
 *       dev.tern.CallOptions}, {@link dev.tern.ClientInterceptor}s, the {@code Forwarding*} client
 *       classes to wrap them; HTTP CONNECT proxies ({@link dev.tern.ProxyDetector}, {@link
 *       dev.tern.HttpConnectProxiedSocketAddress}).
 *   <li>Server: {@link dev.tern.Server} (built by {@link dev.tern.ServerBuilder}), {@link
 *       dev.tern.ServerCall} and its {@link dev.tern.ServerCallHandler}, {@link
 *       dev.tern.ServerInterceptor}s, the service model ({@link dev.tern.ServiceDescriptor}, {@link
 *       dev.tern.MethodDescriptor}, {@link dev.tern.ServerServiceDefinition}, {@link
 *       dev.tern.HandlerRegistry}), {@link dev.tern.NonBlocking} methods, {@link
 *       dev.tern.ServerTransportFilter}s.
 *   <li>Values both sides share: {@link dev.tern.Metadata}, {@link dev.tern.Status} and its two
 *       exceptions, {@link dev.tern.Attributes}, {@link dev.tern.Deadline}, {@link
 *       dev.tern.Context}.
 *   <li>Security: channel and server credentials (insecure, TLS, composite, per address, per
 *       connection), {@link dev.tern.CallCredentials}, {@link dev.tern.SecurityLevel}, and {@link
 *       dev.tern.Grpc}'s entry points and attribute keys. PEM parsing is in {@code dev.tern.tls}.
 *   <li>Compression: {@link dev.tern.Codec}, {@link dev.tern.Compressor}, {@link
 *       dev.tern.Decompressor}, their registries, and {@link dev.tern.CodecProvider}, through which
 *       a jar on the path adds an encoding to the default registries.
 *   <li>Plug-ins a channel chooses by name: {@link dev.tern.NameResolver}, {@link
 *       dev.tern.LoadBalancer}, their providers and registries, {@link
 *       dev.tern.EquivalentAddressGroup}, {@link dev.tern.ConfigSelector}; transports are found the
 *       same way ({@link dev.tern.ManagedChannelProvider}, {@link dev.tern.ServerProvider}).
 *   <li>Observation: {@link dev.tern.ClientStreamTracer}, {@link dev.tern.ServerStreamTracer},
 *       {@link dev.tern.BinaryLog}.
 * </ul>
 *
 * <p>Threads: channels, servers, descriptors, registries, {@code Status}, {@code CallOptions} and
 * credentials are thread-safe; builders and {@code Metadata} are not (one thread at a time). A
 * call's methods are called from one thread at a time, and its listener's callbacks never overlap,
 * on the call's executor (on the transport's thread with {@code directExecutor()} or {@code
 * NonBlocking}). A name resolver and a load balancer run in their channel's {@link
 * dev.tern.SynchronizationContext}; pickers run on the application's threads, concurrently.
 * Interceptors, handlers, compressors and tracer factories are shared by calls and must be
 * thread-safe. Each class says its own contract.
 *
 * <p>Depends on nothing of Tern's but {@code dev.tern.tls}: not the runtime, the SPI, the stubs or
 * the in-process transport ({@code tools/java/package-rules.txt}).
 */
package dev.tern;
