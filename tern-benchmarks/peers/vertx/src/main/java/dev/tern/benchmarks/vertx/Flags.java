package dev.tern.benchmarks.vertx;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name=value} flags of one program, checked against the names it knows; a bad flag is
 * an {@link IllegalArgumentException} that names it. Not thread-safe: main's only.
 */
final class Flags {
  private final String program;
  private final Map<String, String> values = new HashMap<>();

  /** Parses {@code args}; {@code known} are the flag names without dashes. */
  Flags(String program, Set<String> known, String[] args) {
    this.program = program;
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException(program + ": not a flag: " + arg);
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      if (!known.contains(name)) {
        throw new IllegalArgumentException(
            program
                + ": unknown flag --"
                + name
                + " (known: --"
                + String.join(", --", known)
                + ")");
      }
      values.put(name, eq < 0 ? "true" : arg.substring(eq + 1));
    }
  }

  boolean has(String name) {
    return values.containsKey(name);
  }

  String string(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  /** A non-negative integer flag. */
  int integer(String name, int defaultValue) {
    String value = values.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        program + ": --" + name + " must be a non-negative integer, not " + value);
  }

  /** {@code --address=HOST:PORT} as its host and port. */
  HostPort address(String defaultValue) {
    String value = string("address", defaultValue);
    int colon = value.lastIndexOf(':');
    try {
      if (colon > 0) {
        int port = Integer.parseInt(value.substring(colon + 1));
        if (port >= 0 && port <= 65535) {
          return new HostPort(value.substring(0, colon), port);
        }
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        program + ": --address must be HOST:PORT with a port in 0..65535, not " + value);
  }

  record HostPort(String host, int port) {}
}
