package dev.tern.benchmarks.qps;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name=value} and {@code --name} (boolean) command-line flags, spelled as grpc-java's qps
 * tools spell them. Unknown flags are an error naming the flag. Not thread-safe; used by main only.
 */
final class Flags {
  private final Map<String, String> values = new HashMap<>();

  private Flags() {}

  /**
   * Parses {@code args}, accepting only {@code known} names.
   *
   * @throws IllegalArgumentException naming the first unknown or malformed flag
   */
  static Flags parse(String[] args, Set<String> known) {
    Flags flags = new Flags();
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("not a flag: " + arg);
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      String value = eq < 0 ? "true" : arg.substring(eq + 1);
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + "; known: " + known);
      }
      flags.values.put(name, value);
    }
    return flags;
  }

  /** Whether {@code --name} was given. */
  boolean has(String name) {
    return values.containsKey(name);
  }

  String string(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  int integer(String name, int defaultValue) {
    String value = values.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " needs a whole number, got " + value);
    }
  }

  boolean bool(String name) {
    String value = values.get(name);
    if (value == null) {
      return false;
    }
    if (value.equals("true") || value.equals("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException("--" + name + " is true or false, got " + value);
  }
}
