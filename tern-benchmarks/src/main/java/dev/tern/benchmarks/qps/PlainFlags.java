package dev.tern.benchmarks.qps;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of the provider qps programs ({@link ProviderQpsClient}, {@link
 * ProviderQpsServer}), parsed with the JDK only so that those programs import nothing of Tern's:
 * {@code --name=VALUE} and boolean {@code --name}, spelled as grpc-java's {@code AsyncClient} and
 * {@code AsyncServer} spell them. Like Tern's other programs, {@code --help} lists the flags with
 * their defaults and a bad flag is one line naming it, exit status 2.
 *
 * <p>Not thread-safe: built and read by the main thread.
 */
final class PlainFlags {
  /** Thrown to end the program with {@link #status} after its message has been printed. */
  static final class Exit extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Exit(int status) {
      super(null, null, false, false);
      this.status = status;
    }
  }

  private record Flag(String defaultValue, String help) {}

  private final String program;
  private final String summary;
  private final Map<String, Flag> declared = new LinkedHashMap<>();
  private final Map<String, String> values = new LinkedHashMap<>();

  PlainFlags(String program, String summary) {
    this.program = program;
    this.summary = summary;
  }

  /** Declares {@code --name=VALUE}, {@code defaultValue} when not given. */
  PlainFlags flag(String name, String defaultValue, String help) {
    declared.put(name, new Flag(defaultValue, help));
    return this;
  }

  /** Declares the boolean {@code --name}. */
  PlainFlags bool(String name, String help) {
    declared.put(name, new Flag(null, help));
    return this;
  }

  /**
   * Reads {@code args}.
   *
   * @throws Exit with status 0 after printing the help to {@code out} for {@code --help} or {@code
   *     -h}, or with status 2 after one line to {@code err} naming a flag that is unknown or lacks
   *     its value
   */
  PlainFlags parse(String[] args, PrintStream out, PrintStream err) throws Exit {
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        printHelp(out);
        throw new Exit(0);
      }
      int eq = arg.indexOf('=');
      String name = arg.startsWith("--") ? arg.substring(2, eq < 0 ? arg.length() : eq) : arg;
      Flag flag = declared.get(name);
      if (flag == null || (flag.defaultValue() == null) != (eq < 0)) {
        throw usage(
            err,
            flag == null
                ? "unknown flag " + arg
                : "--" + name + (eq < 0 ? " needs a value" : " takes no value"));
      }
      values.put(name, eq < 0 ? "true" : arg.substring(eq + 1));
    }
    return this;
  }

  String string(String name) {
    return values.getOrDefault(name, declared.get(name).defaultValue());
  }

  boolean bool(String name) {
    return values.containsKey(name);
  }

  /**
   * {@code --name} as an integer of at least {@code min}.
   *
   * @throws Exit with status 2 after one line to {@code err} naming the flag otherwise
   */
  int integer(String name, int min, PrintStream err) throws Exit {
    String value = string(name);
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= min) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw usage(err, "--" + name + " must be an integer of at least " + min + ", got " + value);
  }

  /** Prints {@code "PROGRAM: MESSAGE; see --help"} to {@code err} and returns the exit for it. */
  Exit usage(PrintStream err, String message) {
    err.println(program + ": " + message + "; see --help");
    return new Exit(2);
  }

  private void printHelp(PrintStream out) {
    out.println(program + ": " + summary);
    out.println("Flags:");
    for (Map.Entry<String, Flag> e : declared.entrySet()) {
      Flag flag = e.getValue();
      String shown = flag.defaultValue() == null ? "--" + e.getKey() : "--" + e.getKey() + "=";
      out.printf(
          "  %-24s %s%s%n",
          shown,
          flag.help(),
          flag.defaultValue() == null ? "" : " (default " + flag.defaultValue() + ")");
    }
  }
}
