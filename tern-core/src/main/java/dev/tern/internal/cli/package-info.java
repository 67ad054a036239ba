/**
 * Not API: the command-line flags of Tern's own programs ({@code bin/qps-client}, {@code
 * bin/interop-server}, the examples' launchers, ...), which live in modules that share nothing
 * below tern-core. It depends on the JDK alone, nothing in tern-core uses it, and tern-core's
 * module descriptor exports it to no module.
 */
package dev.tern.internal.cli;
