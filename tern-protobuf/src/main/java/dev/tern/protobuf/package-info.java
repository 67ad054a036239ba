/**
 * Protocol Buffers support: {@link dev.tern.protobuf.ProtoUtils#marshaller marshallers} for
 * protobuf-java messages, typed metadata keys for messages, the rich error model ({@link
 * dev.tern.protobuf.StatusProto}), and the descriptor suppliers that generated services attach to
 * their {@link dev.tern.ServiceDescriptor} so tools such as server reflection can find the schema.
 */
package dev.tern.protobuf;
