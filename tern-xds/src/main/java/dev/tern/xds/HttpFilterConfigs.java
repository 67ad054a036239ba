package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.xds.internal.filter.FilterConfigException;
import dev.tern.xds.internal.filter.FilterType;
import dev.tern.xds.internal.filter.FilterTypes;
import io.envoyproxy.envoy.config.route.v3.FilterConfig;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parses {@code typed_per_filter_config} overrides (A39) of virtual hosts, routes and weighted
 * clusters through the filter their type names: any filter Tern knows, as a RouteConfiguration may
 * serve clients and servers alike (each runs the filters of its own side). Stateless.
 */
final class HttpFilterConfigs {
  static final String FILTER_CONFIG_TYPE_URL =
      "type.googleapis.com/envoy.config.route.v3.FilterConfig";

  private HttpFilterConfigs() {}

  /**
   * The parsed overrides by filter name; an unknown filter type is a NACK naming the filter and
   * {@code field}, unless its {@code FilterConfig} wrapper says {@code is_optional} (then it is
   * left out).
   */
  static Map<String, Object> overrides(Map<String, Any> raw, String field)
      throws XdsResourceException {
    if (raw.isEmpty()) {
      return Map.of();
    }
    Map<String, Object> parsed = new TreeMap<>();
    for (Map.Entry<String, Any> entry : raw.entrySet()) {
      String entryField = field + ".typed_per_filter_config[\"" + entry.getKey() + "\"]";
      Any any = entry.getValue();
      boolean optional = false;
      if (any.getTypeUrl().equals(FILTER_CONFIG_TYPE_URL)) {
        FilterConfig wrapper;
        try {
          wrapper = FilterConfig.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
          throw new XdsResourceException(entryField + ": cannot be decoded: " + e.getMessage());
        }
        optional = wrapper.getIsOptional();
        any = wrapper.getConfig();
      }
      FilterType filter = FilterTypes.find(any.getTypeUrl());
      if (filter == null) {
        if (optional) {
          continue;
        }
        throw new XdsResourceException(
            entryField + ": filter type " + any.getTypeUrl() + " is not supported");
      }
      try {
        parsed.put(entry.getKey(), filter.parseOverride(any));
      } catch (FilterConfigException e) {
        throw new XdsResourceException(entryField + ": " + e.getMessage());
      }
    }
    return Map.copyOf(parsed);
  }
}
