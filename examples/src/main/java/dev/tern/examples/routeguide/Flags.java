package dev.tern.examples.routeguide;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The route guide programs' command lines, read the plain way an application would: {@code
 * --name=value} flags from a fixed list, and {@code --help} (or {@code -h}) for the program's help
 * text. Errors are one line naming the flag. Stateless, so thread-safe.
 */
final class Flags {
  private Flags() {}

  /**
   * The program should stop instead of running: print {@link #text} (the help to standard output
   * for status 0, an error to standard error otherwise) and exit with {@link #status}.
   */
  static final class Stop extends Exception {
    private static final long serialVersionUID = 1L;

    final int status;
    final String text;

    Stop(int status, String text) {
      super(text.strip(), null, false, false);
      this.status = status;
      this.text = text;
    }

    /** Prints the text where it belongs and returns the status to exit with. */
    int report(PrintStream out, PrintStream err) {
      PrintStream stream = status == 0 ? out : err;
      stream.print(text);
      stream.flush();
      return status;
    }
  }

  /**
   * The values of the {@code --name=value} flags in {@code args}, by name (without the dashes).
   *
   * @throws Stop with status 0 and {@code help} for {@code --help} or {@code -h}; with status 2 for
   *     a flag not in {@code names} or without a value
   */
  static Map<String, String> parse(String program, String help, String[] args, String... names)
      throws Stop {
    Map<String, String> values = new HashMap<>();
    for (String arg : args) {
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new Stop(0, help);
      }
      int eq = arg.indexOf('=');
      String flag = eq < 0 ? arg : arg.substring(0, eq);
      if (!flag.startsWith("--") || !List.of(names).contains(flag.substring(2))) {
        throw usageError(program, "unknown flag " + flag);
      }
      if (eq < 0) {
        throw usageError(program, flag + " needs a value: " + flag + "=...");
      }
      values.put(flag.substring(2), arg.substring(eq + 1));
    }
    return values;
  }

  /** {@code value} of {@code --flag} as a port number (0 to 65535). */
  static int port(String program, String flag, String value) throws Stop {
    int port;
    try {
      port = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw usageError(program, "--" + flag + " needs a whole number, got '" + value + "'");
    }
    if (port < 0 || port > 65535) {
      throw usageError(program, "--" + flag + " is a port, 0 to 65535, got " + port);
    }
    return port;
  }

  /** A bad command line: {@code "PROGRAM: MESSAGE; see --help"}, status 2. */
  static Stop usageError(String program, String message) {
    return new Stop(2, program + ": " + message + "; see --help\n");
  }
}
