package dev.tern;

/**
 * Marks an {@link java.io.InputStream} whose {@link java.io.InputStream#available()} returns
 * exactly the number of bytes left until the end of the stream, rather than an estimate.
 *
 * <p>Marshallers implement it on the streams they produce so the gRPC message framer can write the
 * length prefix first and the message straight after it, without buffering the message to measure
 * it. ({@link java.io.ByteArrayInputStream} has this property too and is treated the same way.)
 *
 * <p>The framer drains such a stream with {@link java.io.InputStream#transferTo}: implementations
 * should override it to write their bytes to the given stream directly (the inherited one copies
 * through a temporary buffer).
 */
public interface KnownLength {}
