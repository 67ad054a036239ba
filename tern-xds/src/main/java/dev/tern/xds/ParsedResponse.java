package dev.tern.xds;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.envoyproxy.envoy.service.discovery.v3.Resource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One DiscoveryResponse validated resource by resource (A46: the valid ones of a NACKed response
 * are still taken): the valid values, the invalid names with why, each resource's proto, and the
 * errors an NACK's {@code error_detail} lists. Immutable once parsed.
 *
 * @param valid the resources that passed validation, by name
 * @param invalid the names of the resources that failed, with the message naming the field
 * @param raws every named resource's proto, valid or not (what CSDS shows)
 * @param errors every error, in order, including resources that could not even be named
 */
record ParsedResponse<T>(
    Map<String, T> valid,
    Map<String, String> invalid,
    Map<String, Message> raws,
    List<String> errors) {
  private static final String WRAPPED_RESOURCE_TYPE_URL =
      "type.googleapis.com/envoy.service.discovery.v3.Resource";

  /** Validates every resource of {@code response} as {@code type}. */
  static <T> ParsedResponse<T> parse(
      XdsResourceType<T> type, DiscoveryResponse response, Set<String> certificateProviders) {
    List<String> errors = new ArrayList<>();
    Map<String, Message> raws = new LinkedHashMap<>();
    Map<String, T> valid = new LinkedHashMap<>();
    Map<String, String> invalid = new LinkedHashMap<>();
    for (Any any : response.getResourcesList()) {
      Message message;
      try {
        message = type.unpack(unwrap(any, type));
      } catch (XdsResourceException e) {
        errors.add(e.getMessage());
        continue;
      }
      String name = type.name(message);
      if (valid.containsKey(name) || invalid.containsKey(name)) {
        String duplicate = type.typeName() + " \"" + name + "\": sent twice in one response";
        errors.add(duplicate);
        valid.remove(name);
        invalid.put(name, duplicate);
        continue;
      }
      raws.put(name, message);
      try {
        valid.put(name, type.validate(message, certificateProviders));
      } catch (XdsResourceException e) {
        errors.add(e.getMessage());
        invalid.put(name, e.getMessage());
      }
    }
    return new ParsedResponse<>(valid, invalid, raws, errors);
  }

  /** Whether the response named {@code name}, valid or not. */
  boolean names(String name) {
    return valid.containsKey(name) || invalid.containsKey(name);
  }

  /** A resource wrapped in {@code envoy.service.discovery.v3.Resource} (A27), unwrapped. */
  private static Any unwrap(Any any, XdsResourceType<?> type) throws XdsResourceException {
    if (!any.getTypeUrl().equals(WRAPPED_RESOURCE_TYPE_URL)) {
      return any;
    }
    try {
      return Resource.parseFrom(any.getValue()).getResource();
    } catch (InvalidProtocolBufferException e) {
      throw new XdsResourceException(
          type.typeName() + ": a wrapped resource cannot be decoded: " + e.getMessage());
    }
  }
}
