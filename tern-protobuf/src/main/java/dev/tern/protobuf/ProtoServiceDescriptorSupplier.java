package dev.tern.protobuf;

import com.google.protobuf.Descriptors;

/**
 * The schema descriptor generated services attach to their {@link dev.tern.ServiceDescriptor}: the
 * proto service, and through it its file. Implementations are immutable and thread-safe.
 */
public interface ProtoServiceDescriptorSupplier extends ProtoFileDescriptorSupplier {
  /** The descriptor of the proto service. */
  Descriptors.ServiceDescriptor getServiceDescriptor();
}
