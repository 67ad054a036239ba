package dev.tern;

/** A service implementation that can describe itself; generated base classes implement it. */
public interface BindableService {
  /** The definition to add to a server. */
  ServerServiceDefinition bindService();
}
