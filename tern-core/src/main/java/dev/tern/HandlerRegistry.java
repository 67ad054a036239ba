package dev.tern;

import java.util.List;

/**
 * Finds the method definition for an incoming call. The server first looks in the immutable map of
 * services added to its builder, then asks a fallback registry, if one is set. Implementations must
 * be thread-safe: lookups come from transport threads concurrently.
 */
public abstract class HandlerRegistry {
  /** For subclasses. */
  protected HandlerRegistry() {}

  /**
   * The definition for {@code fullMethodName} ({@code pkg.Service/Method}), or null if unknown.
   *
   * @param authority the {@code :authority} of the call, or null; lets a registry serve virtual
   *     hosts
   */
  public abstract ServerMethodDefinition<?, ?> lookupMethod(
      String fullMethodName, String authority);

  /** Same as {@code lookupMethod(fullMethodName, null)}. */
  public final ServerMethodDefinition<?, ?> lookupMethod(String fullMethodName) {
    return lookupMethod(fullMethodName, null);
  }

  /** The services this registry knows, for introspection (may be empty for dynamic registries). */
  public List<ServerServiceDefinition> getServices() {
    return List.of();
  }
}
