package dev.tern.services;

import dev.tern.ServerServiceDefinition;

/**
 * A service that joins {@link AdminServices#getStandardServices()} when its module is present:
 * modules register one through {@link java.util.ServiceLoader} ({@code provides} in their
 * module-info, and {@code META-INF/services/dev.tern.services.AdminServiceProvider} for the class
 * path). tern-xds registers the Client Status Discovery Service this way, so an admin server shows
 * the xDS clients' state without naming tern-xds. Implementations must be thread-safe.
 */
public abstract class AdminServiceProvider {
  /** For subclasses; ServiceLoader needs a public no-argument constructor. */
  protected AdminServiceProvider() {}

  /** A new instance of the service, bound. */
  public abstract ServerServiceDefinition newService();
}
