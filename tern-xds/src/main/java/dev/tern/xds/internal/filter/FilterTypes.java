package dev.tern.xds.internal.filter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP filters Tern knows, by the type URLs of their configs: the router (clients and servers),
 * fault injection (clients) and RBAC (servers). Immutable.
 */
public final class FilterTypes {
  private static final Map<String, FilterType> BY_TYPE_URL =
      index(new RouterFilter(), new FaultFilter(), new RbacFilter());

  private FilterTypes() {}

  /** The filter that takes configs of {@code typeUrl}, or null when Tern knows none. */
  public static FilterType find(String typeUrl) {
    return BY_TYPE_URL.get(typeUrl);
  }

  private static Map<String, FilterType> index(FilterType... filters) {
    Map<String, FilterType> map = new HashMap<>();
    for (FilterType filter : List.of(filters)) {
      for (String typeUrl : filter.typeUrls()) {
        map.put(typeUrl, filter);
      }
    }
    return Map.copyOf(map);
  }
}
