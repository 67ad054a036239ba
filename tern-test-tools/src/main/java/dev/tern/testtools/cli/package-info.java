/**
 * The command-line flags of Tern's own programs ({@code bin/qps-client}, {@code
 * bin/interop-server}, ...). Not published: the programs that use it (tern-benchmarks,
 * tern-interop) are not published either, and the examples, which users copy, read their few
 * arguments by hand.
 *
 * <p>One room: {@link dev.tern.testtools.cli.CommandLine}, a program's flags declared once with
 * their defaults and help text, so that {@code --help} lists exactly what is parsed; a program that
 * should stop (help asked for, a wrong argument) gets an {@link
 * dev.tern.testtools.cli.CommandLine.Exit} with its status and the one line to print.
 *
 * <p>Threads: a {@code CommandLine} is immutable once built and thread-safe; its builder is used by
 * the one thread that declares the program.
 *
 * <p>Depends on the JDK alone: not on Tern's API, runtime or the test harnesses of {@code
 * dev.tern.testtools} ({@code tools/java/package-rules.txt}).
 */
package dev.tern.testtools.cli;
