package dev.tern.testtools.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The flags of one of Tern's command-line programs ({@code bin/qps-client}, {@code
 * bin/interop-server}, ...), declared once with their defaults and help text: {@link #parse} reads
 * {@code --name=value} arguments (and {@code --name} alone for boolean flags) against those
 * declarations, and {@link #help} prints them, so that what {@code --help} lists is exactly what is
 * parsed.
 *
 * <p>Not API: Tern's own programs share it (see the package doc). A program that should stop
 * instead of running — because it was asked for {@code --help} or {@code -h}, or because an
 * argument is wrong — gets an {@link Exit} carrying the exit status and the text to print; every
 * error is one line naming the flag and ending in {@code "; see --help"}.
 *
 * <p>Thread-safety: immutable once built, so thread-safe; its {@link Builder} is not.
 */
public final class CommandLine {
  private static final Pattern FLAG_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]*");

  private final String program;
  private final String summary;
  private final String usage;
  private final Map<String, Flag> flags;
  private final List<String> notes;
  private final String example;

  private CommandLine(Builder builder) {
    this.program = builder.program;
    this.summary = builder.summary;
    this.usage =
        builder.usage != null
            ? builder.usage
            : "bin/" + program + (builder.flags.isEmpty() ? "" : " [FLAGS]");
    this.flags = Collections.unmodifiableMap(new LinkedHashMap<>(builder.flags));
    this.notes = List.copyOf(builder.notes);
    this.example = builder.example;
  }

  /**
   * Starts the declaration of {@code program} (its name in {@code bin/}, e.g. {@code "qps-client"})
   * whose help begins with the one-line {@code summary} of what it does.
   */
  public static Builder builder(String program, String summary) {
    return new Builder(program, summary);
  }

  /** The program's name, as given to {@link #builder}. */
  public String program() {
    return program;
  }

  /**
   * The help text: the summary, the usage line, every flag with its value, default and description,
   * the notes and the example; ends with a line break.
   */
  public String help() {
    List<String[]> rows = new ArrayList<>();
    for (Flag flag : flags.values()) {
      rows.add(new String[] {flag.spelling(), flag.description()});
    }
    rows.add(new String[] {"-h, --help", "print this and exit"});
    int column = 0;
    for (String[] row : rows) {
      column = Math.max(column, row[0].length());
    }
    column += 4;
    StringBuilder text = new StringBuilder();
    text.append(program).append(": ").append(summary).append("\n\n");
    text.append("Usage: ").append(usage).append("\n\nFlags:\n");
    for (String[] row : rows) {
      String[] lines = row[1].split("\n", -1);
      text.append("  ").append(row[0]).append(" ".repeat(column - 2 - row[0].length()));
      text.append(lines[0]).append('\n');
      for (int i = 1; i < lines.length; i++) {
        text.append(" ".repeat(column)).append(lines[i]).append('\n');
      }
    }
    if (!notes.isEmpty()) {
      text.append('\n');
      for (String note : notes) {
        text.append(note).append('\n');
      }
    }
    text.append("\nExample:\n  ").append(example).append('\n');
    return text.toString();
  }

  /**
   * Reads {@code args}.
   *
   * @throws Exit with status 0 and the {@link #help} when {@code args} contain {@code --help} or
   *     {@code -h}; with status 2 and a one-line message naming the argument when an argument is
   *     not a flag, names no declared flag, lacks a value, has a bad boolean value or comes twice
   */
  public Values parse(String... args) {
    Objects.requireNonNull(args, "args");
    for (String arg : args) {
      if ("--help".equals(arg) || "-h".equals(arg)) {
        throw new Exit(0, help());
      }
    }
    Map<String, String> values = new HashMap<>();
    for (String arg : args) {
      Objects.requireNonNull(arg, "args[i]");
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw usageError("unexpected argument '" + arg + "' (flags are --name=value)");
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
      Flag flag = flags.get(name);
      if (flag == null) {
        throw usageError("unknown flag --" + name);
      }
      String value;
      if (eq >= 0) {
        value = arg.substring(eq + 1);
      } else if (flag.bool) {
        value = "true";
      } else {
        throw usageError("--" + name + " needs a value: --" + name + "=" + flag.valueName);
      }
      if (flag.bool && !value.equals("true") && !value.equals("false")) {
        throw usageError("--" + name + " is true or false, got '" + value + "'");
      }
      if (values.put(name, value) != null) {
        throw usageError("--" + name + " given twice");
      }
    }
    return new Values(values);
  }

  /**
   * The {@link Exit} (status 2) for a bad command line that only the program can judge, such as two
   * flags that exclude each other: {@code message}, prefixed with the program's name and followed
   * by {@code "; see --help"}.
   */
  public Exit usageError(String message) {
    Objects.requireNonNull(message, "message");
    return new Exit(2, program + ": " + message + "; see --help\n");
  }

  /**
   * The one line a client program prints when a call to {@code target} failed with a status whose
   * code is named {@code code} (e.g. {@code "UNAVAILABLE"}: the parser knows no gRPC types): {@code
   * "PROGRAM: could not connect to TARGET: UNAVAILABLE: DETAILS"} for {@code UNAVAILABLE}, else
   * {@code "PROGRAM: a call to TARGET failed: CODE: DETAILS"}; line breaks in {@code details}
   * become spaces.
   */
  public String callFailure(String target, String code, String details) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(code, "code");
    return program
        + (code.equals("UNAVAILABLE")
            ? ": could not connect to " + target + ": "
            : ": a call to " + target + " failed: ")
        + code
        + ": "
        + String.valueOf(details).replace('\n', ' ');
  }

  /**
   * A program should stop now with {@link #status()}: after {@code --help} (status 0, the help to
   * standard output) or a bad argument (status 2, a one-line message to standard error). No stack
   * trace is kept: it is an answer, not a fault. Immutable, so thread-safe.
   */
  public static final class Exit extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String text;

    private Exit(int status, String text) {
      super(text.strip(), null, false, false);
      this.status = status;
      this.text = text;
    }

    /** 0 after {@code --help}, 2 after a bad argument. */
    public int status() {
      return status;
    }

    /**
     * Prints the help to {@code out} (status 0) or the error to {@code err} (otherwise), and
     * returns {@link #status()} for the program to exit with.
     */
    public int report(PrintStream out, PrintStream err) {
      PrintStream stream = status == 0 ? out : err;
      stream.print(text);
      stream.flush();
      return status;
    }
  }

  /**
   * The flags of one command line, each given value or else its declared default. Asking for a flag
   * that was never declared is a programming error ({@link IllegalArgumentException}); a value of
   * the wrong form is an {@link Exit} naming the flag. Immutable, so thread-safe.
   */
  public final class Values {
    private final Map<String, String> given;

    private Values(Map<String, String> given) {
      this.given = Map.copyOf(given);
    }

    /** Whether {@code --name} was on the command line. */
    public boolean has(String name) {
      declared(name);
      return given.containsKey(name);
    }

    /** The value of {@code --name}, or its default (null when it has none). */
    public String string(String name) {
      Flag flag = declared(name);
      return given.getOrDefault(name, flag.defaultValue);
    }

    /**
     * The value of {@code --name} as a whole number of at least {@code min}, or its default.
     *
     * @throws Exit (status 2) naming the flag when the value is not such a number
     */
    public int integer(String name, int min) {
      String value = string(name);
      if (value == null) {
        throw new IllegalArgumentException("--" + name + " has no default; ask has() first");
      }
      int number;
      try {
        number = Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw usageError("--" + name + " needs a whole number, got '" + value + "'");
      }
      if (number < min) {
        throw usageError("--" + name + " must be at least " + min + ", got " + number);
      }
      return number;
    }

    /** The value of the boolean flag {@code --name}: true, false, or its default. */
    public boolean bool(String name) {
      Flag flag = declared(name);
      if (!flag.bool) {
        throw new IllegalArgumentException("--" + name + " is not a boolean flag");
      }
      return Boolean.parseBoolean(string(name));
    }

    private Flag declared(String name) {
      Flag flag = flags.get(Objects.requireNonNull(name, "name"));
      if (flag == null) {
        throw new IllegalArgumentException(
            "name: " + program + " declares no flag --" + name + "; declare it in its CommandLine");
      }
      return flag;
    }
  }

  /**
   * Collects a program's flags, notes and example. Not thread-safe: one thread declares a program.
   */
  public static final class Builder {
    private final String program;
    private final String summary;
    private final Map<String, Flag> flags = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private String usage;
    private String example;

    private Builder(String program, String summary) {
      this.program = Objects.requireNonNull(program, "program");
      this.summary = Objects.requireNonNull(summary, "summary");
      if (program.isBlank() || summary.isBlank() || summary.contains("\n")) {
        throw new IllegalArgumentException(
            "program and summary must be given, and summary must be one line");
      }
    }

    /**
     * Declares {@code --name=VALUE}: {@code valueName} shows its form in the help (e.g. {@code
     * "HOST:PORT"}), {@code defaultValue} is used when it is not given (null: none; shown as such),
     * and {@code description} says what it does (line breaks continue it under itself).
     *
     * @throws IllegalArgumentException naming the argument if {@code name} is not lower-case
     *     letters, digits, {@code _} and {@code -}, is {@code help}, or is declared already
     */
    public Builder flag(String name, String valueName, String defaultValue, String description) {
      Objects.requireNonNull(valueName, "valueName");
      add(new Flag(name, valueName, defaultValue, description, false));
      return this;
    }

    /**
     * Declares the boolean flag {@code --name} (also {@code --name=true} or {@code --name=false}),
     * false unless given.
     *
     * @throws IllegalArgumentException as {@link #flag} does
     */
    public Builder bool(String name, String description) {
      add(new Flag(name, "true|false", "false", description, true));
      return this;
    }

    /**
     * Sets the usage line, for a program not started as {@code bin/PROGRAM [FLAGS]} (the default).
     */
    public Builder usage(String usage) {
      this.usage = Objects.requireNonNull(usage, "usage");
      return this;
    }

    /** Adds a line printed after the flags (e.g. what the output means, or the exit status). */
    public Builder note(String line) {
      notes.add(Objects.requireNonNull(line, "line"));
      return this;
    }

    /** Finishes the declaration with one {@code example} command line, shown last in the help. */
    public CommandLine example(String example) {
      this.example = Objects.requireNonNull(example, "example");
      return new CommandLine(this);
    }

    private void add(Flag flag) {
      if (!FLAG_NAME.matcher(flag.name).matches() || flag.name.equals("help")) {
        throw new IllegalArgumentException(
            "name: '" + flag.name + "' is not a flag name (lower case, digits, _ and -; not help)");
      }
      if (flags.putIfAbsent(flag.name, flag) != null) {
        throw new IllegalArgumentException("name: --" + flag.name + " is declared already");
      }
    }
  }

  /** One declared flag. Immutable. */
  private static final class Flag {
    final String name;
    final String valueName;
    final String defaultValue;
    final String help;
    final boolean bool;

    Flag(String name, String valueName, String defaultValue, String help, boolean bool) {
      this.name = Objects.requireNonNull(name, "name");
      this.valueName = valueName;
      this.defaultValue = defaultValue;
      this.help = Objects.requireNonNull(help, "description");
      this.bool = bool;
    }

    String spelling() {
      return bool ? "--" + name + "[=true|false]" : "--" + name + "=" + valueName;
    }

    String description() {
      return help + " (default: " + (defaultValue == null ? "none" : defaultValue) + ")";
    }
  }
}
