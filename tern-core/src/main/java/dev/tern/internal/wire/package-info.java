/**
 * Not API: the gRPC wire helpers that transports share, apart from the channel, call and server
 * state machines in {@code dev.tern.internal}: the length-prefixed message framer and deframer, the
 * header, timeout, status-message and base64 codecs, and the readable and writable buffers they
 * work on.
 *
 * <p>Nothing here depends on the runtime's state machines; the runtime and the transports depend on
 * this package. Public only so that Tern's own modules can share it.
 */
package dev.tern.internal.wire;
