package dev.tern.protobuf;

import com.google.protobuf.Descriptors;

/**
 * The schema descriptor generated code attaches to each {@link dev.tern.MethodDescriptor}: the
 * proto method, its service and its file. Implementations are immutable and thread-safe.
 */
public interface ProtoMethodDescriptorSupplier extends ProtoServiceDescriptorSupplier {
  /** The descriptor of the proto method. */
  Descriptors.MethodDescriptor getMethodDescriptor();
}
