/**
 * Protocol Buffers support for Tern's API.
 *
 * <ul>
 *   <li>Marshalling: {@link dev.tern.protobuf.ProtoUtils} makes marshallers for protobuf-java
 *       messages ({@code ProtoMarshaller}: lazy serialization through {@code ProtoInputStream},
 *       whose exact length lets the framer write the prefix first; parsing with a recursion limit)
 *       and typed metadata keys for messages.
 *   <li>The rich error model: {@link dev.tern.protobuf.StatusProto}, a {@code google.rpc.Status} in
 *       the {@code grpc-status-details-bin} trailer.
 *   <li>Schemas: {@link dev.tern.protobuf.ProtoSchemas} makes the descriptor suppliers ({@link
 *       dev.tern.protobuf.ProtoFileDescriptorSupplier} and its service and method forms) that
 *       generated code attaches to its {@link dev.tern.ServiceDescriptor} and {@link
 *       dev.tern.MethodDescriptor}, so that tools such as server reflection and the web protocols'
 *       JSON find the {@code .proto} file; the file is looked up only when asked for.
 * </ul>
 *
 * <p>Threads: marshallers, suppliers and the static helpers are immutable or stateless and serve
 * every call concurrently; a {@code ProtoInputStream} is read by one thread at a time.
 *
 * <p>Uses tern-core's API only, never the runtime ({@code tools/java/package-rules.txt}; its {@code
 * module-info} is given no runtime package).
 */
package dev.tern.protobuf;
