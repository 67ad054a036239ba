/**
 * The command-line flags of Tern's own programs ({@code bin/qps-client}, {@code
 * bin/interop-server}, ...). Not published: the programs that use it (tern-benchmarks,
 * tern-interop) are not published either, and the examples, which users copy, read their few
 * arguments by hand. Depends on the JDK alone.
 */
package dev.tern.testtools.cli;
