/**
 * gRPC server reflection ({@code grpc.reflection.v1} and {@code grpc.reflection.v1alpha}), which
 * lets clients such as grpcurl discover a server's services and their protobuf descriptors. The
 * generated message and stub classes are in the {@code v1} and {@code v1alpha} subpackages.
 *
 * <pre>
 * ProtoReflectionService.v1() / v1alpha()   one implementation serves both (v1's messages)
 *   a call: the server from Server.CONTEXT_KEY
 *   -&gt; ReflectionIndex     the server's proto services (builder and fallback registry, as they
 *                          are when the request arrives) and every .proto file reachable from
 *                          them, by file name, symbol and extension; rebuilt when they change;
 *                          each file sent as the builder's descriptor set has it, with comments,
 *                          where it matches the generated code's (SourceInfoFiles)
 *   -&gt; ReflectionStream    one call: each request answered in order, or an ErrorResponse
 * </pre>
 *
 * <p>Threads: the service is shared by any number of servers and calls; its cached index is
 * immutable and replaced whole (a volatile field). A {@code ReflectionStream} needs no lock: the
 * runtime calls a call's request observer from one thread at a time.
 *
 * <p>Uses tern-core's API and stubs, and tern-protobuf's {@link
 * dev.tern.protobuf.ProtoFileDescriptorSupplier} to find each service's file.
 */
package dev.tern.services.reflection;
