package dev.tern.xds.internal.filter;

/** The HTTP filters a Tern client runs, by the type URL of their config. Immutable. */
public final class ClientFilters {
  private ClientFilters() {}

  /** The client filter that takes configs of {@code typeUrl}, or null when clients run none. */
  public static ClientFilter find(String typeUrl) {
    return FilterTypes.find(typeUrl) instanceof ClientFilter filter && filter.runsOnClients()
        ? filter
        : null;
  }
}
