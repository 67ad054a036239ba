package dev.tern.protobuf;

import com.google.protobuf.Descriptors;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Creates the schema descriptors that generated code attaches to service and method descriptors.
 * The file descriptor is looked up only when asked for, so building a service's descriptors does
 * not force its whole proto file (and its imports) to be initialized.
 *
 * <p>The suppliers returned are immutable and thread-safe (descriptors themselves are immutable).
 */
public final class ProtoSchemas {
  private ProtoSchemas() {}

  /**
   * A supplier of the file descriptor returned by {@code file} (typically a method reference to the
   * generated outer class's {@code getDescriptor}).
   */
  public static ProtoFileDescriptorSupplier forFile(Supplier<Descriptors.FileDescriptor> file) {
    return new FileSchema(Objects.requireNonNull(file, "file"));
  }

  /** A supplier of service {@code serviceName} (its simple proto name) declared in {@code file}. */
  public static ProtoServiceDescriptorSupplier forService(
      Supplier<Descriptors.FileDescriptor> file, String serviceName) {
    return new ServiceSchema(
        Objects.requireNonNull(file, "file"), Objects.requireNonNull(serviceName, "serviceName"));
  }

  /** A supplier of method {@code methodName} of service {@code serviceName} in {@code file}. */
  public static ProtoMethodDescriptorSupplier forMethod(
      Supplier<Descriptors.FileDescriptor> file, String serviceName, String methodName) {
    return new MethodSchema(
        Objects.requireNonNull(file, "file"),
        Objects.requireNonNull(serviceName, "serviceName"),
        Objects.requireNonNull(methodName, "methodName"));
  }

  private static class FileSchema implements ProtoFileDescriptorSupplier {
    private final Supplier<Descriptors.FileDescriptor> file;

    FileSchema(Supplier<Descriptors.FileDescriptor> file) {
      this.file = file;
    }

    @Override
    public Descriptors.FileDescriptor getFileDescriptor() {
      return Objects.requireNonNull(file.get(), "file descriptor supplier returned null");
    }

    @Override
    public String toString() {
      return "ProtoSchema[" + getFileDescriptor().getName() + "]";
    }
  }

  private static class ServiceSchema extends FileSchema implements ProtoServiceDescriptorSupplier {
    private final String serviceName;

    ServiceSchema(Supplier<Descriptors.FileDescriptor> file, String serviceName) {
      super(file);
      this.serviceName = serviceName;
    }

    @Override
    public Descriptors.ServiceDescriptor getServiceDescriptor() {
      Descriptors.FileDescriptor fileDescriptor = getFileDescriptor();
      Descriptors.ServiceDescriptor service = fileDescriptor.findServiceByName(serviceName);
      if (service == null) {
        throw new IllegalStateException(
            "no service " + serviceName + " in " + fileDescriptor.getName());
      }
      return service;
    }

    String serviceName() {
      return serviceName;
    }

    @Override
    public String toString() {
      return "ProtoSchema[" + serviceName + "]";
    }
  }

  private static final class MethodSchema extends ServiceSchema
      implements ProtoMethodDescriptorSupplier {
    private final String methodName;

    MethodSchema(Supplier<Descriptors.FileDescriptor> file, String serviceName, String methodName) {
      super(file, serviceName);
      this.methodName = methodName;
    }

    @Override
    public Descriptors.MethodDescriptor getMethodDescriptor() {
      Descriptors.ServiceDescriptor service = getServiceDescriptor();
      Descriptors.MethodDescriptor method = service.findMethodByName(methodName);
      if (method == null) {
        throw new IllegalStateException(
            "no method " + methodName + " in service " + service.getFullName());
      }
      return method;
    }

    @Override
    public String toString() {
      return "ProtoSchema[" + serviceName() + "/" + methodName + "]";
    }
  }
}
