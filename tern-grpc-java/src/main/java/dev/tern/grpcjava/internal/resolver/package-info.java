/**
 * Name resolution between the two registries. Not API.
 *
 * <ul>
 *   <li>grpc-java resolvers on Tern: for a scheme Tern has no resolver of its own for, a {@code
 *       io.grpc.NameResolverProvider} the application registered in grpc-java's registry resolves
 *       the targets for Tern's channel, and a channel's own {@code nameResolverFactory} resolves
 *       its target whatever the scheme; both get the builder's {@code setNameResolverArg} values.
 *       {@link dev.tern.grpcjava.internal.resolver.GrpcJavaResolvers} chooses; {@code
 *       GrpcJavaNameResolverProvider} and {@code GrpcJavaNameResolver} wrap grpc-java's provider
 *       and resolver as Tern's (results, service config through Tern's parser, errors as statuses).
 *   <li>Tern's {@code dns} in grpc-java's registry: {@link
 *       dev.tern.grpcjava.internal.resolver.TernDnsNameResolverProvider}, for applications without
 *       grpc-core, listed in the module's {@code provides}.
 * </ul>
 *
 * <p>Threads: Tern calls a wrapped resolver from its channel's synchronization context; grpc-java's
 * resolver answers from its own, and Tern's listener takes those answers from any thread. The
 * providers are immutable and thread-safe.
 *
 * <p>The client side's: the client package uses it; it uses {@code convert} and nothing else of the
 * bridge ({@code tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.resolver;
