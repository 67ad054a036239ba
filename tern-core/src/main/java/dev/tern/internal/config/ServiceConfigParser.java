package dev.tern.internal.config;

import static dev.tern.internal.config.ConfigValues.bool;
import static dev.tern.internal.config.ConfigValues.durationNanos;
import static dev.tern.internal.config.ConfigValues.integer;
import static dev.tern.internal.config.ConfigValues.list;
import static dev.tern.internal.config.ConfigValues.nonNegativeInteger;
import static dev.tern.internal.config.ConfigValues.object;
import static dev.tern.internal.config.ConfigValues.positiveNumber;
import static dev.tern.internal.config.ConfigValues.show;
import static dev.tern.internal.config.ConfigValues.statusCode;
import static dev.tern.internal.config.ConfigValues.string;

import dev.tern.LoadBalancerProvider;
import dev.tern.LoadBalancerRegistry;
import dev.tern.NameResolver.ConfigOrError;
import dev.tern.Status;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Checks a service config (the gRPC service-config doc, gRFC A6) and builds its {@link
 * ServiceConfig}. Errors are {@link IllegalArgumentException}s whose message is the path of the
 * offending field and the problem with its value, e.g. {@code service config:
 * methodConfig[0].retryPolicy.maxAttempts must be an integer >= 2, was 1.0}.
 *
 * <p>Unknown fields are ignored, so configs written for newer clients still work; a known field
 * with the wrong type is an error. A JSON {@code null} counts as the field being absent.
 *
 * <p>Stateless; thread-safe.
 */
public final class ServiceConfigParser {
  private static final String PREFIX = "service config: ";

  /** gRFC A6: at most 1000 tokens. */
  static final int MAX_TOKENS = 1000;

  private ServiceConfigParser() {}

  /**
   * Parses a service config written as JSON.
   *
   * @throws IllegalArgumentException if it is not valid JSON or not a valid config
   */
  public static ServiceConfig parseJson(String json, LoadBalancerRegistry registry) {
    Map<String, ?> raw;
    try {
      raw = JsonParser.parseObject(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + e.getMessage(), e);
    }
    return parse(raw, registry);
  }

  /**
   * Parses a service config given as maps, lists, strings, numbers and booleans. The map is copied.
   *
   * @param registry where the policies of {@code loadBalancingConfig} are looked up
   * @throws IllegalArgumentException if it is not a valid config
   */
  public static ServiceConfig parse(Map<String, ?> raw, LoadBalancerRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    Map<String, ?> config = object(deepCopy(Objects.requireNonNull(raw, "raw")), "service config");
    Map<String, MethodConfig> byMethod = new HashMap<>();
    Map<String, MethodConfig> byService = new HashMap<>();
    MethodConfig defaultMethodConfig = null;
    Object methodConfigs = config.get("methodConfig");
    if (methodConfigs != null) {
      Map<String, String> namedAt = new HashMap<>(); // lookup key (see methodName) -> path
      List<?> entries = list(methodConfigs, at("methodConfig"));
      for (int i = 0; i < entries.size(); i++) {
        String path = "methodConfig[" + i + "]";
        Map<String, ?> entry = object(entries.get(i), at(path));
        List<?> names = nonEmptyList(entry.get("name"), path + ".name");
        List<String> keys = new ArrayList<>(names.size());
        for (int j = 0; j < names.size(); j++) {
          String namePath = path + ".name[" + j + "]";
          String key = methodName(names.get(j), namePath);
          String earlier = namedAt.putIfAbsent(key, namePath);
          if (earlier != null) {
            throw new IllegalArgumentException(
                at(namePath) + ": " + describeName(key) + " is already named at " + earlier);
          }
          keys.add(key);
        }
        MethodConfig methodConfig = methodConfig(entry, path);
        for (String key : keys) {
          if (key.isEmpty()) {
            defaultMethodConfig = methodConfig;
          } else if (key.endsWith("/")) {
            byService.put(key.substring(0, key.length() - 1), methodConfig);
          } else {
            byMethod.put(key, methodConfig);
          }
        }
      }
    }
    Object throttling = config.get("retryThrottling");
    Object healthCheck = config.get("healthCheckConfig");
    String healthCheckServiceName = null;
    if (healthCheck != null) {
      Object serviceName = object(healthCheck, at("healthCheckConfig")).get("serviceName");
      if (serviceName != null) {
        healthCheckServiceName = string(serviceName, at("healthCheckConfig.serviceName"));
      }
    }
    PolicyChoice policy = loadBalancingPolicy(config, registry);
    return new ServiceConfig(
        config,
        byMethod,
        byService,
        defaultMethodConfig,
        throttling == null ? null : retryThrottling(throttling),
        policy == null ? null : policy.name,
        policy == null ? null : policy.config,
        healthCheckServiceName);
  }

  /**
   * Parses one {@code methodConfig} entry on its own (a config selector's), as maps, lists,
   * strings, numbers and booleans; its {@code name} list, if any, is ignored.
   *
   * @throws IllegalArgumentException naming the field if it is not a valid method config
   */
  public static MethodConfig parseMethodConfig(Map<String, ?> raw) {
    Map<String, ?> entry = object(deepCopy(Objects.requireNonNull(raw, "raw")), at("methodConfig"));
    return methodConfig(entry, "methodConfig");
  }

  /**
   * One {@code name} entry as a lookup key: {@code "service/method"} for a method, {@code
   * "service/"} for a whole service, {@code ""} for the default.
   */
  private static String methodName(Object value, String path) {
    Map<String, ?> name = object(value, at(path));
    Object service = name.get("service");
    Object method = name.get("method");
    String serviceName = service == null ? "" : string(service, at(path + ".service"));
    String methodName = method == null ? "" : string(method, at(path + ".method"));
    if (serviceName.isEmpty() && !methodName.isEmpty()) {
      throw new IllegalArgumentException(
          at(path) + ": method " + show(methodName) + " needs a service");
    }
    return serviceName.isEmpty() ? "" : serviceName + "/" + methodName;
  }

  private static String describeName(String key) {
    if (key.isEmpty()) {
      return "the default name (no service)";
    } else if (key.endsWith("/")) {
      return "service " + show(key.substring(0, key.length() - 1));
    }
    return "method " + show(key);
  }

  private static MethodConfig methodConfig(Map<String, ?> entry, String path) {
    Object timeout = entry.get("timeout");
    Long timeoutNanos = null;
    if (timeout != null) {
      timeoutNanos = durationNanos(timeout, at(path + ".timeout"));
      if (timeoutNanos < 0) {
        throw ConfigValues.invalid(at(path + ".timeout"), "must be >= 0", timeout);
      }
    }
    Object waitForReady = entry.get("waitForReady");
    Object retry = entry.get("retryPolicy");
    Object hedging = entry.get("hedgingPolicy");
    if (retry != null && hedging != null) {
      throw new IllegalArgumentException(
          at(path) + " sets both retryPolicy and hedgingPolicy; at most one is allowed");
    }
    return new MethodConfig(
        timeoutNanos,
        waitForReady == null ? null : bool(waitForReady, at(path + ".waitForReady")),
        messageBytes(entry, "maxRequestMessageBytes", path),
        messageBytes(entry, "maxResponseMessageBytes", path),
        retry == null ? null : retryPolicy(object(retry, at(path + ".retryPolicy")), path),
        hedging == null ? null : hedgingPolicy(object(hedging, at(path + ".hedgingPolicy")), path));
  }

  private static Integer messageBytes(Map<String, ?> entry, String field, String path) {
    Object value = entry.get(field);
    if (value == null) {
      return null;
    }
    return (int) Math.min(Integer.MAX_VALUE, nonNegativeInteger(value, at(path + "." + field)));
  }

  private static RetryPolicy retryPolicy(Map<String, ?> policy, String methodPath) {
    String path = methodPath + ".retryPolicy";
    return new RetryPolicy(
        maxAttempts(policy, path),
        positiveDuration(required(policy, "initialBackoff", path), path + ".initialBackoff"),
        positiveDuration(required(policy, "maxBackoff", path), path + ".maxBackoff"),
        positiveNumber(
            required(policy, "backoffMultiplier", path), at(path + ".backoffMultiplier")),
        statusCodes(
            nonEmptyList(
                required(policy, "retryableStatusCodes", path), path + ".retryableStatusCodes"),
            path + ".retryableStatusCodes"));
  }

  private static HedgingPolicy hedgingPolicy(Map<String, ?> policy, String methodPath) {
    String path = methodPath + ".hedgingPolicy";
    Object delay = policy.get("hedgingDelay");
    long delayNanos = 0;
    if (delay != null) {
      delayNanos = durationNanos(delay, at(path + ".hedgingDelay"));
      if (delayNanos < 0) {
        throw ConfigValues.invalid(at(path + ".hedgingDelay"), "must be >= 0", delay);
      }
    }
    Object codes = policy.get("nonFatalStatusCodes");
    String codesPath = path + ".nonFatalStatusCodes";
    return new HedgingPolicy(
        maxAttempts(policy, path),
        delayNanos,
        codes == null ? Set.of() : statusCodes(list(codes, at(codesPath)), codesPath));
  }

  private static int maxAttempts(Map<String, ?> policy, String path) {
    long maxAttempts =
        integer(
            required(policy, "maxAttempts", path), at(path + ".maxAttempts"), 2, Long.MAX_VALUE);
    return (int) Math.min(Integer.MAX_VALUE, maxAttempts);
  }

  private static long positiveDuration(Object value, String path) {
    long nanos = durationNanos(value, at(path));
    if (nanos <= 0) {
      throw ConfigValues.invalid(at(path), "must be > 0", value);
    }
    return nanos;
  }

  /** A list of status codes to retry on: OK is refused (a success is never retried). */
  private static Set<Status.Code> statusCodes(List<?> values, String path) {
    Set<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    for (int i = 0; i < values.size(); i++) {
      String at = at(path + "[" + i + "]");
      Status.Code code = statusCode(values.get(i), at);
      if (code == Status.Code.OK) {
        throw ConfigValues.invalid(
            at, "must not be OK (a success is never retried)", values.get(i));
      }
      codes.add(code);
    }
    return codes;
  }

  private static RetryThrottlingPolicy retryThrottling(Object value) {
    Map<String, ?> throttling = object(value, at("retryThrottling"));
    String path = "retryThrottling";
    long maxTokens =
        integer(
            required(throttling, "maxTokens", path), at(path + ".maxTokens"), 1, Long.MAX_VALUE);
    Object ratio = required(throttling, "tokenRatio", path);
    double tokenRatio = positiveNumber(ratio, at(path + ".tokenRatio"));
    // gRFC A6 keeps 3 decimal places; BigDecimal.valueOf avoids 0.29 becoming 0.289.
    double rounded = BigDecimal.valueOf(tokenRatio).setScale(3, RoundingMode.FLOOR).doubleValue();
    if (rounded == 0) {
      throw ConfigValues.invalid(at(path + ".tokenRatio"), "must be at least 0.001", ratio);
    }
    return new RetryThrottlingPolicy((int) Math.min(MAX_TOKENS, maxTokens), rounded);
  }

  /** The chosen policy and its parsed config, or null if the config names none. */
  private static PolicyChoice loadBalancingPolicy(
      Map<String, ?> config, LoadBalancerRegistry registry) {
    Object lbConfigs = config.get("loadBalancingConfig");
    List<?> entries = lbConfigs == null ? List.of() : list(lbConfigs, at("loadBalancingConfig"));
    List<String> asked = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      String path = "loadBalancingConfig[" + i + "]";
      Map<String, ?> entry = object(entries.get(i), at(path));
      if (entry.size() != 1) {
        throw ConfigValues.invalid(
            at(path), "must be an object with exactly one field, the policy name", entry);
      }
      String name = entry.keySet().iterator().next();
      Map<String, ?> policyConfig = object(entry.get(name), at(path + "." + name));
      LoadBalancerProvider provider = registry.getProvider(name);
      if (provider != null) {
        return PolicyChoice.parse(provider, policyConfig, path + "." + name);
      }
      asked.add(name);
    }
    if (!asked.isEmpty()) {
      throw new IllegalArgumentException(
          at("loadBalancingConfig")
              + " names no registered policy: asked for "
              + asked
              + ", registered are "
              + registry.policyNames());
    }
    Object legacy = config.get("loadBalancingPolicy");
    if (legacy == null) {
      return null;
    }
    String name = string(legacy, at("loadBalancingPolicy")).toLowerCase(Locale.ROOT);
    LoadBalancerProvider provider = registry.getProvider(name);
    if (provider == null) {
      throw new IllegalArgumentException(
          at("loadBalancingPolicy")
              + ": no policy named "
              + show(name)
              + " is registered, registered are "
              + registry.policyNames());
    }
    return PolicyChoice.parse(provider, Map.of(), "loadBalancingPolicy");
  }

  /** A chosen load-balancing policy and its parsed config. */
  private record PolicyChoice(String name, Object config) {
    static PolicyChoice parse(LoadBalancerProvider provider, Map<String, ?> raw, String path) {
      ConfigOrError parsed = provider.parseLoadBalancingPolicyConfig(raw);
      if (parsed.getError() != null) {
        throw new IllegalArgumentException(
            at(path)
                + ": policy "
                + show(provider.getPolicyName())
                + " refused its config: "
                + parsed.getError().getDescription());
      }
      return new PolicyChoice(provider.getPolicyName(), parsed.getConfig());
    }
  }

  private static Object required(Map<String, ?> object, String field, String path) {
    Object value = object.get(field);
    if (value == null) {
      throw new IllegalArgumentException(at(path + "." + field) + " is required");
    }
    return value;
  }

  private static List<?> nonEmptyList(Object value, String path) {
    if (value == null) {
      throw new IllegalArgumentException(at(path) + " is required");
    }
    List<?> list = list(value, at(path));
    if (list.isEmpty()) {
      throw new IllegalArgumentException(at(path) + " must not be empty");
    }
    return list;
  }

  private static String at(String path) {
    return PREFIX + path;
  }

  /** An unmodifiable deep copy, so the config cannot change after it was checked. */
  private static Object deepCopy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new LinkedHashMap<>();
      map.forEach((key, element) -> copy.put(key, deepCopy(element)));
      return Collections.unmodifiableMap(copy);
    } else if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(element -> copy.add(deepCopy(element)));
      return Collections.unmodifiableList(copy);
    }
    return value;
  }
}
