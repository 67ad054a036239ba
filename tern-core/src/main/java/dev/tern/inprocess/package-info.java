/**
 * The in-process transport: channels and servers of one JVM joined by method calls, with no socket,
 * no HTTP/2 and no framing, for tests and for services that call each other in-process.
 *
 * <pre>
 * InProcessServerBuilder / InProcessChannelBuilder   the API (also "inprocess:NAME" targets,
 *                                                    through InProcessChannelProvider and
 *                                                    InProcessNameResolverProvider)
 *   -> InProcessServer      a name in a process-wide registry, from start until shutdown
 *   -> InProcessTransport   one connection: the channel's client transport and the server's
 *                           ServerTransport, joined back to back
 *   -> InProcessStream      one call: a client stream and a server stream; per direction the
 *                           receiver's flow control and size limit (OneWayMessages, MeasuredMessage)
 *   -> CallbackQueue        delivers each receiver's listener events one at a time, in order,
 *                           never under a transport lock
 * </pre>
 *
 * <p>{@code HeaderListSize} measures metadata as HTTP/2 does, so header size limits mean the same
 * here as on the network; {@code InProcessSocketAddress} is a server's address (its name).
 *
 * <p>Threads: there is none of its own. Every event runs on the thread whose call caused it: a
 * client's {@code writeMessage} delivers the server's {@code messageRead} on the writing thread,
 * through the receiver's {@code CallbackQueue} (if another thread is already draining that queue,
 * that thread delivers it). Each transport and stream changes state under its own lock and calls no
 * listener while holding it. The builders are not thread-safe; everything they build is.
 */
package dev.tern.inprocess;
