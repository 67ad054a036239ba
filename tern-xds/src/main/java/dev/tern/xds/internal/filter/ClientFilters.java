package dev.tern.xds.internal.filter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The HTTP filters a Tern client knows, by the type URL of their config. Immutable. */
public final class ClientFilters {
  private static final Map<String, ClientFilter> BY_TYPE_URL =
      index(new RouterFilter(), new FaultFilter());

  private ClientFilters() {}

  /** The filter that takes configs of {@code typeUrl}, or null when Tern knows none. */
  public static ClientFilter find(String typeUrl) {
    return BY_TYPE_URL.get(typeUrl);
  }

  private static Map<String, ClientFilter> index(ClientFilter... filters) {
    Map<String, ClientFilter> map = new HashMap<>();
    for (ClientFilter filter : List.of(filters)) {
      for (String typeUrl : filter.typeUrls()) {
        map.put(typeUrl, filter);
      }
    }
    return Map.copyOf(map);
  }
}
