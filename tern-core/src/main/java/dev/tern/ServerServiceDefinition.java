package dev.tern;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** A service: its descriptor plus a handler per method. Immutable; thread-safe. */
public final class ServerServiceDefinition {
  private final ServiceDescriptor serviceDescriptor;
  private final Map<String, ServerMethodDefinition<?, ?>> methods;

  private ServerServiceDefinition(
      ServiceDescriptor serviceDescriptor, Map<String, ServerMethodDefinition<?, ?>> methods) {
    this.serviceDescriptor = serviceDescriptor;
    this.methods = Collections.unmodifiableMap(new LinkedHashMap<>(methods));
  }

  /** A builder for a service without a schema. */
  public static Builder builder(String serviceName) {
    return new Builder(serviceName, null);
  }

  /** A builder for a described service; every described method must get a handler. */
  public static Builder builder(ServiceDescriptor serviceDescriptor) {
    return new Builder(
        Objects.requireNonNull(serviceDescriptor, "serviceDescriptor").getName(),
        serviceDescriptor);
  }

  /** The service's descriptor. */
  public ServiceDescriptor getServiceDescriptor() {
    return serviceDescriptor;
  }

  /** The methods with their handlers. */
  public Collection<ServerMethodDefinition<?, ?>> getMethods() {
    return methods.values();
  }

  /** The definition for a full method name ({@code pkg.Service/Method}), or null. */
  public ServerMethodDefinition<?, ?> getMethod(String fullMethodName) {
    return methods.get(fullMethodName);
  }

  @Override
  public String toString() {
    return "ServerServiceDefinition[" + serviceDescriptor.getName() + "]";
  }

  /** Builds a {@link ServerServiceDefinition}. Not thread-safe. */
  public static final class Builder {
    private final String serviceName;
    private final ServiceDescriptor serviceDescriptor;
    private final Map<String, ServerMethodDefinition<?, ?>> methods = new LinkedHashMap<>();

    private Builder(String serviceName, ServiceDescriptor serviceDescriptor) {
      this.serviceName = Objects.requireNonNull(serviceName, "serviceName");
      this.serviceDescriptor = serviceDescriptor;
    }

    /** Adds a method with its handler. */
    public <ReqT, RespT> Builder addMethod(
        MethodDescriptor<ReqT, RespT> method, ServerCallHandler<ReqT, RespT> handler) {
      return addMethod(ServerMethodDefinition.create(method, handler));
    }

    /** Adds a method definition; its service must be this one and it must not be added twice. */
    public Builder addMethod(ServerMethodDefinition<?, ?> definition) {
      MethodDescriptor<?, ?> method = definition.getMethodDescriptor();
      if (!serviceName.equals(method.getServiceName())) {
        throw new IllegalArgumentException(
            "method " + method.getFullMethodName() + " is not part of service " + serviceName);
      }
      if (methods.putIfAbsent(method.getFullMethodName(), definition) != null) {
        throw new IllegalStateException("method already added: " + method.getFullMethodName());
      }
      return this;
    }

    /** Builds; with a descriptor, checks that each described method has a handler. */
    public ServerServiceDefinition build() {
      ServiceDescriptor descriptor = serviceDescriptor;
      if (descriptor == null) {
        ServiceDescriptor.Builder b = ServiceDescriptor.newBuilder(serviceName);
        for (ServerMethodDefinition<?, ?> m : methods.values()) {
          b.addMethod(m.getMethodDescriptor());
        }
        descriptor = b.build();
      } else {
        for (MethodDescriptor<?, ?> m : descriptor.getMethods()) {
          ServerMethodDefinition<?, ?> def = methods.get(m.getFullMethodName());
          if (def == null) {
            throw new IllegalStateException("no handler for method " + m.getFullMethodName());
          }
          if (def.getMethodDescriptor() != m) {
            throw new IllegalStateException(
                "handler for " + m.getFullMethodName() + " uses another method descriptor");
          }
        }
        if (methods.size() != descriptor.getMethods().size()) {
          throw new IllegalStateException("handlers added for methods not in " + descriptor);
        }
      }
      return new ServerServiceDefinition(descriptor, methods);
    }
  }
}
