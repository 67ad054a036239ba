package dev.tern.xds.internal.admin;

import dev.tern.ServerServiceDefinition;
import dev.tern.services.AdminServiceProvider;
import dev.tern.xds.CsdsService;

/**
 * Adds CSDS to {@code dev.tern.services.AdminServices}' standard set; found through {@link
 * java.util.ServiceLoader}, not for direct use. Thread-safe: stateless.
 */
public final class CsdsAdminServiceProvider extends AdminServiceProvider {
  /** For ServiceLoader. */
  public CsdsAdminServiceProvider() {}

  @Override
  public ServerServiceDefinition newService() {
    return CsdsService.newInstance().bindService();
  }
}
