/**
 * Not API: the gRPC wire helpers that transports share, apart from the channel, call and server
 * state machines in {@code dev.tern.internal}. Public only so that Tern's own modules can share it.
 *
 * <ul>
 *   <li>Messages: {@link dev.tern.internal.wire.MessageFramer} (outbound messages into
 *       length-prefixed frames, batched into {@link dev.tern.internal.wire.WritableBuffer}s) and
 *       {@link dev.tern.internal.wire.MessageDeframer} (inbound bytes in any chunks into messages,
 *       as many as requested); {@link dev.tern.internal.wire.GrpcFrame}'s constants.
 *   <li>Headers: {@link dev.tern.internal.wire.GrpcHeaders} (the reserved keys), {@link
 *       dev.tern.internal.wire.GrpcTimeoutCodec}, {@link dev.tern.internal.wire.GrpcMessageCodec}
 *       ({@code grpc-message}'s percent-encoding), {@link dev.tern.internal.wire.Base64Codec}
 *       ({@code -bin} values).
 *   <li>Buffers: {@link dev.tern.internal.wire.ReadableBuffer} and {@link
 *       dev.tern.internal.wire.WritableBuffer}, which hide where bytes live (a transport provides
 *       its own, Netty's pooled buffers), with heap and composite forms.
 * </ul>
 *
 * <p>Threads: a framer, a deframer and a buffer belong to one thread at a time (the stream's
 * writer, the transport's thread for inbound bytes); the deframer's listener runs on that thread.
 * The codecs and allocators are stateless or immutable and thread-safe.
 *
 * <p>Depends on the API only, never on the runtime ({@code dev.tern.internal}) or the SPI ({@code
 * tools/java/package-rules.txt}); the runtime, the in-process transport, tern-netty and tern-web
 * use it.
 */
package dev.tern.internal.wire;
