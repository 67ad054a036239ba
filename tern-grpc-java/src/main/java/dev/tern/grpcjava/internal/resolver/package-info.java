/**
 * grpc-java name resolvers on Tern: a {@code io.grpc.NameResolverProvider} the application
 * registered in grpc-java's registry, for a scheme Tern has no resolver of its own for, resolves
 * the targets of that scheme for Tern's channel ({@link
 * dev.tern.grpcjava.internal.resolver.GrpcJavaResolvers}).
 */
package dev.tern.grpcjava.internal.resolver;
