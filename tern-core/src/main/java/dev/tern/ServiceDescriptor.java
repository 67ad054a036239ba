package dev.tern;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The name and methods of a service, and optionally its schema (e.g. a protobuf file descriptor,
 * for reflection). Immutable; thread-safe.
 */
public final class ServiceDescriptor {
  private final String name;
  private final List<MethodDescriptor<?, ?>> methods;
  private final Object schemaDescriptor;

  private ServiceDescriptor(Builder builder) {
    this.name = builder.name;
    this.methods = List.copyOf(builder.methods);
    this.schemaDescriptor = builder.schemaDescriptor;
    Set<String> seen = new HashSet<>();
    for (MethodDescriptor<?, ?> method : methods) {
      if (!name.equals(method.getServiceName())) {
        throw new IllegalArgumentException(
            "method " + method.getFullMethodName() + " is not part of service " + name);
      }
      if (!seen.add(method.getFullMethodName())) {
        throw new IllegalArgumentException("duplicate method " + method.getFullMethodName());
      }
    }
  }

  /** A descriptor for {@code name} with {@code methods}. */
  public ServiceDescriptor(String name, MethodDescriptor<?, ?>... methods) {
    this(newBuilder(name).addAllMethods(List.of(methods)));
  }

  /** A builder for service {@code name} (fully qualified, e.g. {@code pkg.Service}). */
  public static Builder newBuilder(String name) {
    return new Builder(name);
  }

  /** The fully qualified service name. */
  public String getName() {
    return name;
  }

  /** The methods, in the order they were added. */
  public Collection<MethodDescriptor<?, ?>> getMethods() {
    return methods;
  }

  /** The schema this service was generated from, or null. */
  public Object getSchemaDescriptor() {
    return schemaDescriptor;
  }

  @Override
  public String toString() {
    return "ServiceDescriptor[" + name + ", " + methods.size() + " methods]";
  }

  /** Builds a {@link ServiceDescriptor}. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final List<MethodDescriptor<?, ?>> methods = new ArrayList<>();
    private Object schemaDescriptor;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
      if (name.isEmpty() || name.indexOf('/') >= 0) {
        throw new IllegalArgumentException("invalid service name: '" + name + "'");
      }
    }

    /** Adds a method; its service name must be this service's. */
    public Builder addMethod(MethodDescriptor<?, ?> method) {
      methods.add(Objects.requireNonNull(method, "method"));
      return this;
    }

    /** Adds methods. */
    public Builder addAllMethods(Collection<MethodDescriptor<?, ?>> methods) {
      for (MethodDescriptor<?, ?> method : methods) {
        addMethod(method);
      }
      return this;
    }

    /** Sets the schema descriptor (e.g. a protobuf file descriptor supplier). */
    public Builder setSchemaDescriptor(Object schemaDescriptor) {
      this.schemaDescriptor = schemaDescriptor;
      return this;
    }

    /** Builds; checks that the methods belong to the service and are not duplicated. */
    public ServiceDescriptor build() {
      return new ServiceDescriptor(this);
    }
  }
}
