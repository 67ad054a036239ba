package dev.tern.examples;

import dev.tern.Server;

/**
 * What the examples' main programs share: reading {@code --name=value} flags, and serving until the
 * JVM is asked to stop. Stateless; thread-safe.
 */
public final class ExampleMain {
  private ExampleMain() {}

  /**
   * The value of {@code --name=VALUE} in {@code args} (the last one, if several), or {@code
   * defaultValue}.
   */
  public static String flag(String[] args, String name, String defaultValue) {
    String prefix = "--" + name + "=";
    String value = defaultValue;
    for (String arg : args) {
      if (arg.startsWith(prefix)) {
        value = arg.substring(prefix.length());
      }
    }
    return value;
  }

  /**
   * {@link #flag} as a number.
   *
   * @throws IllegalArgumentException naming the flag if its value is not a number
   */
  public static int intFlag(String[] args, String name, int defaultValue) {
    String value = flag(args, name, null);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a number, was '" + value + "'", e);
    }
  }

  /** Whether {@code --name} (with no value) is among {@code args}. */
  public static boolean hasFlag(String[] args, String name) {
    for (String arg : args) {
      if (arg.equals("--" + name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Says that {@code server} ({@code what}) listens and on which port, shuts it down gracefully
   * when the JVM is asked to stop (Ctrl-C, SIGTERM), and waits until it has.
   */
  public static void serve(Server server, String what) throws InterruptedException {
    System.out.println(what + " listening on port " + server.getPort());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
