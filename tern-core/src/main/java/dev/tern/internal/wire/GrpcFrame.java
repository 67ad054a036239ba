package dev.tern.internal.wire;

/**
 * Constants of the gRPC length-prefixed message: {@code [flags: 1 byte][length: 4 bytes, big-endian
 * unsigned][message]}.
 */
public final class GrpcFrame {

  /** Size of the prefix before every message: one flags byte and a four-byte length. */
  public static final int HEADER_LENGTH = 5;

  /** Flags value of an uncompressed message. */
  public static final int UNCOMPRESSED_FLAG = 0;

  /** Flags bit set on a message compressed with the stream's {@code grpc-encoding}. */
  public static final int COMPRESSED_FLAG_MASK = 0x01;

  /** Flags bits with no meaning yet; a receiver rejects a message that sets any (INTERNAL). */
  public static final int RESERVED_FLAGS_MASK = 0xFE;

  private GrpcFrame() {}
}
