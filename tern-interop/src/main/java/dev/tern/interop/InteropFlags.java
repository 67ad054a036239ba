package dev.tern.interop;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The conventional {@code --name=value} flags of interop programs. Unknown flags and malformed
 * values are {@link IllegalArgumentException}s naming the flag. Not thread-safe; used by main.
 */
final class InteropFlags {
  private final Map<String, String> values = new HashMap<>();

  private InteropFlags() {}

  static InteropFlags parse(String[] args, Set<String> known) {
    InteropFlags flags = new InteropFlags();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      String name = arg.substring(2, eq);
      if (!known.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + "; known: " + known);
      }
      flags.values.put(name, arg.substring(eq + 1));
    }
    return flags;
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

  boolean bool(String name, boolean defaultValue) {
    String value = values.get(name);
    if (value == null) {
      return defaultValue;
    }
    if (value.equals("true") || value.equals("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException("--" + name + " is true or false, got " + value);
  }

  /**
   * Where the test CA and server key pair are: the system property {@code tern.interop.certs}, else
   * {@code $TERN_INTEROP_CERTS_DIR}, else {@code tern-interop/target/test-certs} (where the
   * launchers' {@code fetch-test-certs.sh} puts them).
   */
  static Path certDir() {
    String dir = System.getProperty("tern.interop.certs");
    if (dir == null) {
      dir = System.getenv("TERN_INTEROP_CERTS_DIR");
    }
    return Path.of(dir != null ? dir : "tern-interop/target/test-certs");
  }
}
