/**
 * Netty handlers running Tern's own HTTP/2 engine ({@code internal.http2}) on a channel. Not wired
 * into the gRPC server or client yet (issue 34): for now it holds the handler that conformance
 * tools such as h2spec are run against. It may use {@code internal.http2} and {@code
 * internal.codec}, never the client, server or exchange packages (tools/java/package-rules.txt).
 */
package dev.tern.netty.internal.engine;
