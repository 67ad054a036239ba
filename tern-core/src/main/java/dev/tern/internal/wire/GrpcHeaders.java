package dev.tern.internal.wire;

import dev.tern.Metadata;

/**
 * Metadata keys for the headers the protocol reserves for itself. The runtime reads and writes
 * them; transports map them to and from HTTP/2 header fields. Immutable; thread-safe.
 */
public final class GrpcHeaders {
  private GrpcHeaders() {}

  /** {@code grpc-timeout}: the call's remaining time, see {@link GrpcTimeoutCodec}. */
  public static final Metadata.Key<String> TIMEOUT =
      Metadata.Key.of("grpc-timeout", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-encoding}: the compression of the messages this side sends. */
  public static final Metadata.Key<String> MESSAGE_ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-accept-encoding}: the encodings this side can decompress. */
  public static final Metadata.Key<String> MESSAGE_ACCEPT_ENCODING =
      Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code content-type}. */
  public static final Metadata.Key<String> CONTENT_TYPE =
      Metadata.Key.of("content-type", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code user-agent}. */
  public static final Metadata.Key<String> USER_AGENT =
      Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-status} (trailers). */
  public static final Metadata.Key<String> STATUS =
      Metadata.Key.of("grpc-status", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-message} (trailers), percent-encoded, see {@link GrpcMessageCodec}. */
  public static final Metadata.Key<String> MESSAGE =
      Metadata.Key.of("grpc-message", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-previous-rpc-attempts}: on a retry or hedge, how many attempts came before. */
  public static final Metadata.Key<String> PREVIOUS_RPC_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);

  /** {@code grpc-retry-pushback-ms} (trailers): the server's wish about a retry (gRFC A6). */
  public static final Metadata.Key<String> RETRY_PUSHBACK_MS =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  /** The default content type. */
  public static final String CONTENT_TYPE_GRPC = "application/grpc";

  /** Tern's own user-agent token. */
  public static final String USER_AGENT_TOKEN = "tern-java/0.1.0";

  /** Default largest inbound message, as in other gRPC implementations: 4 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024;

  /** Default largest inbound header list: 8 KiB. */
  public static final int DEFAULT_MAX_HEADER_LIST_SIZE = 8192;
}
