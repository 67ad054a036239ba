/**
 * Conversions between grpc-java's {@code io.grpc} values and Tern's, shared by the client and the
 * server side of the bridge, and by its resolver and balancer adapters. Not API.
 *
 * <ul>
 *   <li>{@link dev.tern.grpcjava.internal.convert.Metadatas}, {@link
 *       dev.tern.grpcjava.internal.convert.Statuses}, {@link
 *       dev.tern.grpcjava.internal.convert.Deadlines}: headers and trailers, status, deadlines,
 *       both ways.
 *   <li>{@link dev.tern.grpcjava.internal.convert.Methods}: method descriptors, whose marshallers
 *       wrap grpc-java's and keep their zero-copy and known-length paths ({@code
 *       DelegatingInputStream}).
 *   <li>{@link dev.tern.grpcjava.internal.convert.Credentials}: channel and server credentials
 *       (insecure, TLS); what Tern cannot honour is an error naming it.
 *   <li>{@link dev.tern.grpcjava.internal.convert.Proxies}: proxy detectors and HTTP CONNECT
 *       proxied addresses, both ways.
 *   <li>{@link dev.tern.grpcjava.internal.convert.TransportAttributes} and {@link
 *       dev.tern.grpcjava.internal.convert.StreamEvents}: what grpc-java's handlers and stream
 *       tracers read (addresses, TLS session, security level; stream events).
 *   <li>{@link dev.tern.grpcjava.internal.convert.GrpcJavaTracerFactory}: a grpc-java client stream
 *       tracer factory (from the call options, or from a grpc-java balancer's pick) run as Tern's;
 *       {@link dev.tern.grpcjava.internal.convert.LoggingChannelLogger}: what grpc-java's resolvers
 *       and balancers log, to {@code java.util.logging}.
 * </ul>
 *
 * <p>Threads: every converter is stateless and thread-safe; the values converted keep their own
 * contracts ({@code Metadata} one thread at a time).
 *
 * <p>Imports none of the bridge's other packages, and of Tern only the public API ({@code
 * tools/java/package-rules.txt}).
 */
package dev.tern.grpcjava.internal.convert;
