/**
 * The Tern console ({@link dev.tern.console.TernConsole}): a page in the browser on a Netty
 * server's own port that shows and calls every service the server's reflection describes, and shows
 * its health, channelz and the server's calls per method (counted by {@code ServerMetrics}, a
 * stream tracer the console adds to the server; thread-safe, updated from the calls' threads). See
 * docs/console.md.
 */
package dev.tern.console;
