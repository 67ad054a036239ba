package dev.tern.testtools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The exit status and output of one in-process run of a command-line program written as {@code
 * static int run(String[] args, PrintStream out, PrintStream err)} (Tern's {@code bin/} programs),
 * for tests of what a user of the program sees. Immutable, so thread-safe.
 *
 * @param status what {@code run} returned: the exit status
 * @param out what it printed to standard output (UTF-8)
 * @param err what it printed to standard error (UTF-8)
 */
public record ProgramRun(int status, String out, String err) {
  /** A program's {@code run} method. */
  @FunctionalInterface
  public interface Program {
    /** Runs the program with {@code args}; returns its exit status. */
    int run(String[] args, PrintStream out, PrintStream err) throws Exception;
  }

  /** The record's checks: both texts are given. */
  public ProgramRun {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
  }

  /**
   * Runs {@code program} with {@code args} in this thread and keeps what it returned and printed.
   */
  public static ProgramRun of(Program program, String... args) throws Exception {
    Objects.requireNonNull(program, "program");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        program.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new ProgramRun(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
