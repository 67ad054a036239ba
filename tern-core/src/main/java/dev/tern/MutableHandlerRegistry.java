package dev.tern;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link HandlerRegistry} whose services can be added and removed while the server runs. Use it
 * as the server's {@link dev.tern.ServerBuilder#fallbackHandlerRegistry fallback registry}:
 *
 * <pre>{@code
 * MutableHandlerRegistry registry = new MutableHandlerRegistry();
 * Server server = ServerBuilder.forPort(0).fallbackHandlerRegistry(registry).build().start();
 * registry.addService(new GreeterImpl().bindService());
 * }</pre>
 *
 * <p>Calls already started keep the handler they were given; a change affects calls that start
 * after it. The {@code authority} of a lookup is ignored.
 *
 * <p>Thread-safe: backed by a {@link ConcurrentHashMap} from service name to definition, so lookups
 * never block and see every change that completed before they started.
 */
public final class MutableHandlerRegistry extends HandlerRegistry {
  private final ConcurrentHashMap<String, ServerServiceDefinition> services =
      new ConcurrentHashMap<>();

  /** Creates an empty registry. */
  public MutableHandlerRegistry() {}

  /**
   * Adds {@code service}, replacing a service of the same name.
   *
   * @return the replaced service, or null if there was none
   */
  public ServerServiceDefinition addService(ServerServiceDefinition service) {
    Objects.requireNonNull(service, "service");
    return services.put(service.getServiceDescriptor().getName(), service);
  }

  /**
   * Removes {@code service}, if it is the one registered under its name.
   *
   * @return whether it was removed
   */
  public boolean removeService(ServerServiceDefinition service) {
    Objects.requireNonNull(service, "service");
    return services.remove(service.getServiceDescriptor().getName(), service);
  }

  /** A snapshot of the registered services, in no particular order; unmodifiable. */
  @Override
  public List<ServerServiceDefinition> getServices() {
    return Collections.unmodifiableList(new ArrayList<>(services.values()));
  }

  /**
   * {@inheritDoc} Finds the service by the part of {@code fullMethodName} before its last {@code
   * '/'}; a name without one finds nothing.
   */
  @Override
  public ServerMethodDefinition<?, ?> lookupMethod(String fullMethodName, String authority) {
    String serviceName = MethodDescriptor.extractFullServiceName(fullMethodName);
    if (serviceName == null) {
      return null;
    }
    ServerServiceDefinition service = services.get(serviceName);
    return service == null ? null : service.getMethod(fullMethodName);
  }
}
