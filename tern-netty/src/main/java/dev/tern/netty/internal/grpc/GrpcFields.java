package dev.tern.netty.internal.grpc;

import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.internal.wire.GrpcMessageCodec;
import dev.tern.internal.wire.GrpcTimeoutCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * gRPC's outbound header blocks as the field arrays the HTTP/2 engine encodes (names and values
 * alternating, pseudo-headers first), built straight from {@link Metadata} with no header object in
 * between, in the order the gRPC wire protocol gives: pseudo-headers, then {@code te}, {@code
 * content-type}, {@code user-agent}, {@code grpc-timeout}, {@code grpc-encoding}, {@code
 * grpc-accept-encoding}, then custom metadata ({@code -bin} values base64 without padding).
 * Metadata bytes are shared, not copied: the engine never modifies a field's bytes, and neither may
 * any caller. Blocks are built on the application thread, so the event loop only encodes them.
 *
 * <p>The server's most common blocks (headers without metadata or with the one same entry, OK
 * trailers) are built once and shared by every call that sends them.
 *
 * <p>Thread-safe: the only state is the shared one-entry response, replaced whole.
 */
public final class GrpcFields {
  private static final byte[] METHOD = ascii(":method");
  private static final byte[] SCHEME = ascii(":scheme");
  private static final byte[] PATH = ascii(":path");
  private static final byte[] AUTHORITY = ascii(":authority");
  private static final byte[] STATUS = ascii(":status");
  private static final byte[] POST = ascii("POST");
  private static final byte[] TE = ascii("te");
  private static final byte[] TRAILERS = ascii("trailers");
  private static final byte[] CONTENT_TYPE = ascii(GrpcHeaders.CONTENT_TYPE.name());
  private static final byte[] CONTENT_TYPE_GRPC = ascii(GrpcHeaders.CONTENT_TYPE_GRPC);
  private static final byte[] CONTENT_TYPE_TEXT = ascii("text/plain; charset=utf-8");
  private static final byte[] STATUS_OK = ascii("200");
  private static final byte[] USER_AGENT = ascii(GrpcHeaders.USER_AGENT.name());
  private static final byte[] TIMEOUT = ascii(GrpcHeaders.TIMEOUT.name());
  private static final byte[] ENCODING = ascii(GrpcHeaders.MESSAGE_ENCODING.name());
  private static final byte[] ACCEPT_ENCODING = ascii(GrpcHeaders.MESSAGE_ACCEPT_ENCODING.name());
  private static final byte[] GRPC_STATUS = ascii(GrpcHeaders.STATUS.name());
  private static final byte[] GRPC_MESSAGE = ascii(GrpcHeaders.MESSAGE.name());

  /** {@code grpc-status} values 0..16, encoded once. */
  private static final byte[][] STATUS_CODES = new byte[17][];

  static {
    for (int i = 0; i < STATUS_CODES.length; i++) {
      STATUS_CODES[i] = ascii(Integer.toString(i));
    }
  }

  /** The response HEADERS of a call whose headers carry no metadata. */
  private static final byte[][] RESPONSE_PLAIN = {
    STATUS, STATUS_OK, CONTENT_TYPE, CONTENT_TYPE_GRPC
  };

  /** The trailers of a call that ended OK without trailing metadata after response headers. */
  private static final byte[][] TRAILERS_OK = {GRPC_STATUS, STATUS_CODES[0]};

  /**
   * The response HEADERS last built for metadata of one entry (in practice the server's {@code
   * grpc-accept-encoding}, which every call sends): most calls of a server send the same block, so
   * it is shared instead of rebuilt. Racy by design: any thread may replace it, and a reader sees
   * some complete holder.
   */
  private static volatile OneEntryResponse lastOneEntryResponse =
      new OneEntryResponse(null, null, null);

  /** A response block and the one metadata entry it was built from. Immutable. */
  private record OneEntryResponse(byte[] name, byte[] value, byte[][] fields) {
    boolean matches(byte[] otherName, byte[] otherValue) {
      return fields != null && Arrays.equals(name, otherName) && Arrays.equals(value, otherValue);
    }
  }

  private GrpcFields() {}

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The request HEADERS of a call; {@code headers} is read, not kept.
   *
   * @param userAgent the {@code user-agent} value, or null for none
   */
  public static byte[][] request(
      byte[] scheme, byte[] path, byte[] authority, byte[] userAgent, Metadata headers) {
    byte[][] md = headers.toSerialized();
    int count = headers.headerCount();
    Block block = new Block(7 + count);
    block.add(METHOD, POST);
    block.add(SCHEME, scheme);
    block.add(PATH, path);
    block.add(AUTHORITY, authority);
    block.add(TE, TRAILERS);
    block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    if (userAgent != null) {
      block.add(USER_AGENT, userAgent);
    }
    // The reserved headers first, in the wire protocol's order.
    block.addNamed(md, count, TIMEOUT);
    block.addNamed(md, count, ENCODING);
    block.addNamed(md, count, ACCEPT_ENCODING);
    for (int i = 0; i < count; i++) {
      byte[] name = md[2 * i];
      if (isTransportOwned(name)
          || Arrays.equals(name, USER_AGENT)
          || Arrays.equals(name, TIMEOUT)
          || Arrays.equals(name, ENCODING)
          || Arrays.equals(name, ACCEPT_ENCODING)) {
        continue;
      }
      block.addEntry(name, md[2 * i + 1]);
    }
    return block.toArray();
  }

  /**
   * Shortens the {@code grpc-timeout} of request fields {@link #request} built by {@code
   * elapsedNanos}, the time the stream waited to open since, replacing the value in {@code fields}
   * (the caller's own array; the value arrays are not modified). Fields without a timeout, or with
   * one that does not decode, are left as they are.
   */
  public static void shortenTimeout(byte[][] fields, long elapsedNanos) {
    for (int i = 0; i < fields.length; i += 2) {
      if (Arrays.equals(fields[i], TIMEOUT)) {
        long timeoutNanos;
        try {
          timeoutNanos =
              GrpcTimeoutCodec.decode(new String(fields[i + 1], StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
          return; // not one the runtime wrote: the server will answer it
        }
        fields[i + 1] = ascii(GrpcTimeoutCodec.encode(timeoutNanos - Math.max(0, elapsedNanos)));
        return;
      }
    }
  }

  /**
   * The response HEADERS: {@code :status 200}, content-type, then {@code headers}. The array may be
   * shared by calls that send the same headers.
   */
  public static byte[][] response(Metadata headers) {
    int count = headers.headerCount();
    if (count == 0) {
      return RESPONSE_PLAIN;
    }
    byte[][] md = headers.toSerialized();
    if (count == 1) {
      OneEntryResponse last = lastOneEntryResponse;
      if (last.matches(md[0], md[1])) {
        return last.fields();
      }
      byte[][] built = buildResponse(md, count);
      lastOneEntryResponse = new OneEntryResponse(md[0], md[1], built);
      return built;
    }
    return buildResponse(md, count);
  }

  private static byte[][] buildResponse(byte[][] md, int count) {
    Block block = new Block(2 + count);
    block.add(STATUS, STATUS_OK);
    block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    block.addCustom(md, count);
    return block.toArray();
  }

  /**
   * The trailers ending a call; with {@code trailersOnly} (no response headers were sent) the one
   * HEADERS frame also carries {@code :status 200} and content-type. The array may be shared.
   */
  public static byte[][] trailers(Status status, Metadata trailers, boolean trailersOnly) {
    int count = trailers.headerCount();
    if (count == 0 && !trailersOnly && status.isOk() && status.getDescription() == null) {
      return TRAILERS_OK;
    }
    byte[][] md = trailers.toSerialized();
    Block block = new Block(4 + count);
    if (trailersOnly) {
      block.add(STATUS, STATUS_OK);
      block.add(CONTENT_TYPE, CONTENT_TYPE_GRPC);
    }
    block.addStatus(status);
    block.addCustom(md, count);
    return block.toArray();
  }

  /** An HTTP error answer to a request that is not valid gRPC: HTTP status plus gRPC status. */
  public static byte[][] httpError(int httpStatus, Status status) {
    return httpErrorBlock(httpStatus, CONTENT_TYPE_GRPC, status);
  }

  /**
   * The headers of an HTTP error answer to a request that is not gRPC: {@code :status}, a {@code
   * text/plain} content-type for the body that follows, and the gRPC status.
   */
  public static byte[][] httpErrorWithBody(int httpStatus, Status status) {
    return httpErrorBlock(httpStatus, CONTENT_TYPE_TEXT, status);
  }

  private static byte[][] httpErrorBlock(int httpStatus, byte[] type, Status status) {
    Block block = new Block(4);
    block.add(STATUS, ascii(Integer.toString(httpStatus)));
    block.add(CONTENT_TYPE, type);
    block.addStatus(status);
    return block.toArray();
  }

  /** Names the transport writes itself; metadata must not duplicate or forge them. */
  static boolean isTransportOwned(byte[] name) {
    return (name.length > 0 && name[0] == ':')
        || Arrays.equals(name, CONTENT_TYPE)
        || Arrays.equals(name, TE)
        || Arrays.equals(name, GRPC_STATUS)
        || Arrays.equals(name, GRPC_MESSAGE);
  }

  /** Fields collected as name, value, name, value... */
  private static final class Block {
    private final byte[][] fields;
    private int size;

    Block(int maxFields) {
      fields = new byte[2 * maxFields][];
    }

    void add(byte[] name, byte[] value) {
      fields[size++] = name;
      fields[size++] = value;
    }

    /** {@code grpc-status}, and {@code grpc-message} if the status has a description. */
    void addStatus(Status status) {
      add(GRPC_STATUS, STATUS_CODES[status.getCode().value()]);
      String description = status.getDescription();
      if (description != null) {
        add(GRPC_MESSAGE, ascii(GrpcMessageCodec.encode(description)));
      }
    }

    void addCustom(byte[][] md, int count) {
      for (int i = 0; i < count; i++) {
        byte[] name = md[2 * i];
        if (!isTransportOwned(name)) {
          addEntry(name, md[2 * i + 1]);
        }
      }
    }

    /** Every value of the reserved {@code name}. */
    void addNamed(byte[][] md, int count, byte[] name) {
      for (int i = 0; i < count; i++) {
        if (Arrays.equals(md[2 * i], name)) {
          add(name, md[2 * i + 1]);
        }
      }
    }

    /** One metadata entry; a {@code -bin} value goes out as base64 without padding. */
    void addEntry(byte[] name, byte[] value) {
      add(name, GrpcWire.isBinaryName(name) ? Base64Codec.encodeBase64NoPadding(value) : value);
    }

    byte[][] toArray() {
      return size == fields.length ? fields : Arrays.copyOf(fields, size);
    }
  }
}
