package dev.tern.protobuf;

import com.google.protobuf.Descriptors;

/**
 * A schema descriptor (see {@link dev.tern.ServiceDescriptor#getSchemaDescriptor()}) that leads to
 * the {@code .proto} file a service or method was generated from. Tools such as server reflection
 * test for this interface. Implementations are immutable and thread-safe.
 */
public interface ProtoFileDescriptorSupplier {
  /** The descriptor of the {@code .proto} file. */
  Descriptors.FileDescriptor getFileDescriptor();
}
