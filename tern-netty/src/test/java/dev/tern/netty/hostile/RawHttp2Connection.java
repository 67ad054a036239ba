package dev.tern.netty.hostile;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.tern.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A hand-driven HTTP/2 client connection over a plain socket, for feeding a server frames no
 * well-behaved client would send. It writes exactly the bytes a test asks for (frames are encoded
 * here; header blocks use HPACK literals without indexing or Huffman, so any name or value goes out
 * unvalidated) and reads the server's frames back one at a time, decoding header blocks with
 * Netty's HPACK decoder. It answers the peer's SETTINGS with an ACK, as a live peer would, and does
 * nothing else on its own. It can also play the server side ({@link #accept}), to feed a client
 * responses no well-behaved server would send.
 *
 * <p>Threads: the write methods are synchronized (the lock guards the output stream and the
 * recorded write failure), so a flood may be written from one thread while the test thread reads;
 * the read methods must be called from one thread only. Reads give up after {@link Await#TIMEOUT}
 * with an {@link AssertionError}, so a server that never answers fails the test rather than hanging
 * it.
 */
final class RawHttp2Connection implements Closeable {
  static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(US_ASCII);

  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int WINDOW_UPDATE = 0x8;
  static final int CONTINUATION = 0x9;

  /** The largest frame every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's initial value). */
  static final int MIN_MAX_FRAME_SIZE = 16_384;

  static final int FLAG_END_STREAM = 0x1;
  static final int FLAG_ACK = 0x1;
  static final int FLAG_END_HEADERS = 0x4;

  static final int NO_ERROR = 0x0;
  static final int PROTOCOL_ERROR = 0x1;
  static final int STREAM_CLOSED = 0x5;
  static final int COMPRESSION_ERROR = 0x9;
  static final int CANCEL = 0x8;
  static final int ENHANCE_YOUR_CALM = 0xb;

  /** A frame read from the peer; {@code headers} is set for a complete HEADERS block. */
  record Frame(int type, int flags, int streamId, byte[] payload, Map<String, String> headers) {
    boolean endStream() {
      return (type == DATA || type == HEADERS) && (flags & FLAG_END_STREAM) != 0;
    }

    /** The error code of a RST_STREAM or GOAWAY frame. */
    int errorCode() {
      ByteBuffer buffer = ByteBuffer.wrap(payload);
      if (type == RST_STREAM) {
        return buffer.getInt(0);
      }
      if (type == GOAWAY) {
        return buffer.getInt(4);
      }
      throw new IllegalStateException("no error code in frame type " + type);
    }

    /** The last-stream-id of a GOAWAY frame. */
    int lastStreamId() {
      return ByteBuffer.wrap(payload).getInt(0) & 0x7fffffff;
    }

    @Override
    public String toString() {
      String detail =
          switch (type) {
            case HEADERS -> " " + headers;
            case RST_STREAM -> " error=" + errorCode();
            case GOAWAY ->
                " error="
                    + errorCode()
                    + " last="
                    + lastStreamId()
                    + " debug="
                    + new String(payload, 8, payload.length - 8, UTF_8);
            default -> " length=" + payload.length;
          };
      return "Frame{type=" + type + " flags=" + flags + " stream=" + streamId + detail + "}";
    }
  }

  /** What became of one stream: its frames, and how it ended. */
  record StreamEnd(List<Frame> frames, Frame last) {
    /** The response headers and trailers merged (later values win), or empty if none came. */
    Map<String, String> headers() {
      Map<String, String> merged = new LinkedHashMap<>();
      for (Frame frame : frames) {
        if (frame.type() == HEADERS) {
          merged.putAll(frame.headers());
        }
      }
      return merged;
    }

    boolean reset() {
      return last != null && last.type() == RST_STREAM;
    }

    /** The concatenated DATA payloads of the stream. */
    byte[] data() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (Frame frame : frames) {
        if (frame.type() == DATA) {
          out.writeBytes(frame.payload());
        }
      }
      return out.toByteArray();
    }
  }

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private final DefaultHttp2HeadersDecoder hpackDecoder =
      new DefaultHttp2HeadersDecoder(false, 1L << 20);
  // Read side only (one thread).
  private boolean eof;
  private boolean acksSettings = true;
  // Guarded by this (the write side).
  private IOException writeFailure;

  private RawHttp2Connection(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.in = new DataInputStream(socket.getInputStream());
  }

  /** Connects to the server on loopback {@code port}, sending nothing yet. */
  static RawHttp2Connection connect(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout((int) Await.TIMEOUT.toMillis());
    return new RawHttp2Connection(socket);
  }

  /**
   * Accepts one connection on {@code listener} as a server would: reads and checks the client
   * preface, then sends an empty SETTINGS frame.
   */
  static RawHttp2Connection accept(ServerSocket listener) throws IOException {
    Socket socket = listener.accept();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout((int) Await.TIMEOUT.toMillis());
    RawHttp2Connection connection = new RawHttp2Connection(socket);
    byte[] preface = new byte[PREFACE.length];
    connection.in.readFully(preface);
    if (!Arrays.equals(preface, PREFACE)) {
      socket.close();
      throw new AssertionError("the client did not send the HTTP/2 preface");
    }
    connection.writeFrame(SETTINGS, 0, 0, new byte[0]);
    return connection;
  }

  /** Connects and sends the client preface and an empty SETTINGS frame. */
  static RawHttp2Connection open(int port) throws IOException {
    return handshake(connect(port));
  }

  /**
   * Like {@link #open}, with a socket receive buffer of about {@code bytes} (set before connecting,
   * so the TCP window stays that small): for a peer that stops reading and should soon stop
   * receiving too.
   */
  static RawHttp2Connection openWithReceiveBuffer(int port, int bytes) throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(bytes);
    socket.connect(new InetSocketAddress("127.0.0.1", port));
    socket.setTcpNoDelay(true);
    socket.setSoTimeout((int) Await.TIMEOUT.toMillis());
    return handshake(new RawHttp2Connection(socket));
  }

  private static RawHttp2Connection handshake(RawHttp2Connection connection) throws IOException {
    connection.writeRaw(PREFACE);
    connection.writeFrame(SETTINGS, 0, 0, new byte[0]);
    return connection;
  }

  // ------------------------------------------------------------------ writing

  /**
   * Writes {@code bytes}. If the peer has already closed the connection (a common answer to hostile
   * input) the bytes are dropped and the failure kept for {@link #writeFailed()}: the reads that
   * follow show how the peer ended the connection.
   */
  synchronized void writeRaw(byte[] bytes) throws IOException {
    if (writeFailure != null) {
      return;
    }
    try {
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      if (socket.isClosed()) {
        throw e; // closed by the test itself: a bug in the test
      }
      writeFailure = e;
    }
  }

  synchronized void writeFrame(int type, int flags, int streamId, byte[] payload)
      throws IOException {
    writeRaw(frame(type, flags, streamId, payload));
  }

  /** Whether a write failed because the peer had closed the connection. */
  synchronized boolean writeFailed() {
    return writeFailure != null;
  }

  /** One frame, encoded: the 9-byte header and {@code payload}. */
  static byte[] frame(int type, int flags, int streamId, byte[] payload) {
    ByteBuffer buffer = ByteBuffer.allocate(9 + payload.length);
    buffer.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8));
    buffer.put((byte) payload.length).put((byte) type).put((byte) flags).putInt(streamId);
    return buffer.put(payload).array();
  }

  /**
   * A header block already encoded, as a HEADERS frame and as many CONTINUATIONs as it takes at
   * HTTP/2's smallest maximum frame size (16 KiB), END_HEADERS on the last.
   */
  void writeHeaderBlock(int streamId, boolean endStream, byte[] block) throws IOException {
    int offset = 0;
    do {
      int end = Math.min(block.length, offset + MIN_MAX_FRAME_SIZE);
      int flags = end == block.length ? FLAG_END_HEADERS : 0;
      if (offset == 0 && endStream) {
        flags |= FLAG_END_STREAM;
      }
      writeFrame(
          offset == 0 ? HEADERS : CONTINUATION,
          flags,
          streamId,
          Arrays.copyOfRange(block, offset, end));
      offset = end;
    } while (offset < block.length);
  }

  /** A HEADERS frame (with END_HEADERS) carrying {@code headers}, name-value pairs in order. */
  void writeHeaders(int streamId, boolean endStream, List<String[]> headers) throws IOException {
    int flags = FLAG_END_HEADERS | (endStream ? FLAG_END_STREAM : 0);
    writeFrame(HEADERS, flags, streamId, headerBlock(headers));
  }

  void writeData(int streamId, boolean endStream, byte[] data) throws IOException {
    writeFrame(DATA, endStream ? FLAG_END_STREAM : 0, streamId, data);
  }

  void writeRstStream(int streamId, int errorCode) throws IOException {
    writeFrame(RST_STREAM, 0, streamId, ByteBuffer.allocate(4).putInt(errorCode).array());
  }

  /** A WINDOW_UPDATE of {@code increment} bytes on {@code streamId} (0: the connection). */
  void writeWindowUpdate(int streamId, int increment) throws IOException {
    writeFrame(WINDOW_UPDATE, 0, streamId, ByteBuffer.allocate(4).putInt(increment).array());
  }

  void writePing(long payload) throws IOException {
    writeFrame(PING, 0, 0, ByteBuffer.allocate(8).putLong(payload).array());
  }

  /** An HPACK block of literal fields without indexing, no Huffman coding. */
  static byte[] headerBlock(List<String[]> headers) {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    for (String[] header : headers) {
      block.write(0x00);
      writeString(block, header[0].getBytes(UTF_8));
      writeString(block, header[1].getBytes(UTF_8));
    }
    return block.toByteArray();
  }

  /**
   * One HPACK literal field WITH incremental indexing (new name): the receiver adds it to its
   * dynamic table, where it is entry 62 until the next one is added.
   */
  static byte[] indexedLiteral(String name, String value) {
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    field.write(0x40);
    writeString(field, name.getBytes(UTF_8));
    writeString(field, value.getBytes(UTF_8));
    return field.toByteArray();
  }

  /**
   * One HPACK indexed field: a reference to entry {@code index} of the static table (1 to 61) or of
   * the receiver's dynamic table (62 on), one byte for indices under 127.
   */
  static byte[] indexedField(int index) {
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    writeInteger(field, 0x80, 7, index);
    return field.toByteArray();
  }

  /** One HPACK dynamic table size update to {@code size} bytes (RFC 7541 6.3). */
  static byte[] tableSizeUpdate(long size) {
    ByteArrayOutputStream update = new ByteArrayOutputStream();
    writeInteger(update, 0x20, 5, size);
    return update.toByteArray();
  }

  /**
   * One HPACK literal field without indexing whose value is marked Huffman-coded and is {@code
   * huffmanValue}, sent as is (so it may be garbage no Huffman decoder accepts).
   */
  static byte[] huffmanLiteral(String name, byte[] huffmanValue) {
    ByteArrayOutputStream field = new ByteArrayOutputStream();
    field.write(0x00);
    writeString(field, name.getBytes(UTF_8));
    writeInteger(field, 0x80, 7, huffmanValue.length);
    field.writeBytes(huffmanValue);
    return field.toByteArray();
  }

  private static void writeString(ByteArrayOutputStream block, byte[] bytes) {
    // The high bit, Huffman, stays clear.
    writeInteger(block, 0x00, 7, bytes.length);
    block.writeBytes(bytes);
  }

  /** An HPACK integer (RFC 7541 5.1) with a {@code prefixBits}-bit prefix after {@code flags}. */
  private static void writeInteger(
      ByteArrayOutputStream out, int flags, int prefixBits, long value) {
    int max = (1 << prefixBits) - 1;
    if (value < max) {
      out.write(flags | (int) value);
      return;
    }
    out.write(flags | max);
    value -= max;
    while (value >= 128) {
      out.write((int) (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** The request headers of a well-formed gRPC call to {@code path}. */
  static List<String[]> grpcRequestHeaders(String path) {
    return headers(
        ":method",
        "POST",
        ":scheme",
        "http",
        ":path",
        path,
        ":authority",
        "127.0.0.1",
        "content-type",
        "application/grpc",
        "te",
        "trailers");
  }

  /** A header list for {@link #writeHeaders}: names and values in turn. */
  static List<String[]> headers(String... namesAndValues) {
    List<String[]> headers = new ArrayList<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.add(new String[] {namesAndValues[i], namesAndValues[i + 1]});
    }
    return headers;
  }

  /** A length-prefixed gRPC message: {@code flag}, the length of {@code body}, {@code body}. */
  static byte[] grpcMessage(int flag, byte[] body) {
    return grpcPrefix(flag, body.length, body);
  }

  /** A gRPC message prefix announcing {@code declaredLength} bytes, followed by {@code body}. */
  static byte[] grpcPrefix(int flag, int declaredLength, byte[] body) {
    return ByteBuffer.allocate(5 + body.length)
        .put((byte) flag)
        .putInt(declaredLength)
        .put(body)
        .array();
  }

  // ------------------------------------------------------------------ reading

  /**
   * From now on the peer's SETTINGS are not acknowledged (a client that never answers them, for the
   * server's SETTINGS timeout).
   */
  void neverAckSettings() {
    acksSettings = false;
  }

  /**
   * Reads the next frame, assembling HEADERS with their CONTINUATIONs, or returns null once the
   * peer has closed the connection (or reset it).
   */
  Frame readFrame() throws IOException {
    Frame frame = readRawFrame();
    if (frame == null || frame.type() != HEADERS) {
      if (frame != null
          && frame.type() == SETTINGS
          && (frame.flags() & FLAG_ACK) == 0
          && acksSettings) {
        try {
          writeFrame(SETTINGS, FLAG_ACK, 0, new byte[0]);
        } catch (IOException e) {
          // The server is closing the connection; the next read sees the end.
        }
      }
      return frame;
    }
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    block.writeBytes(headerFragment(frame));
    int flags = frame.flags();
    while ((flags & FLAG_END_HEADERS) == 0) {
      Frame continuation = readRawFrame();
      if (continuation == null || continuation.type() != CONTINUATION) {
        throw new AssertionError("HEADERS not followed by CONTINUATION: " + continuation);
      }
      block.writeBytes(continuation.payload());
      flags |= continuation.flags();
    }
    return new Frame(
        HEADERS, flags, frame.streamId(), frame.payload(), decode(frame.streamId(), block));
  }

  /** Reads frames until {@code streamId} ends (END_STREAM or RST_STREAM) or the connection does. */
  StreamEnd awaitStreamEnd(int streamId) throws IOException {
    List<Frame> frames = new ArrayList<>();
    while (true) {
      Frame frame = readFrame();
      if (frame == null) {
        return new StreamEnd(frames, null);
      }
      if (frame.streamId() == streamId || frame.type() == GOAWAY) {
        frames.add(frame);
      }
      if (frame.streamId() == streamId && (frame.endStream() || frame.type() == RST_STREAM)) {
        return new StreamEnd(frames, frame);
      }
    }
  }

  /**
   * Reads frames until each of the {@code count} client streams from 1 (1, 3, 5, ...) has ended
   * (END_STREAM or RST_STREAM), in whatever order they end, or the connection does. Returns what
   * became of each, in stream order; a stream the connection's end cut short has a null {@link
   * StreamEnd#last()}.
   */
  List<StreamEnd> awaitStreamEnds(int count) throws IOException {
    List<List<Frame>> frames = new ArrayList<>();
    Frame[] last = new Frame[count];
    for (int i = 0; i < count; i++) {
      frames.add(new ArrayList<>());
    }
    int ended = 0;
    while (ended < count) {
      Frame frame = readFrame();
      if (frame == null) {
        break;
      }
      int index = (frame.streamId() - 1) / 2;
      if (frame.streamId() % 2 == 0 || index >= count || last[index] != null) {
        continue;
      }
      frames.get(index).add(frame);
      if (frame.endStream() || frame.type() == RST_STREAM) {
        last[index] = frame;
        ended++;
      }
    }
    List<StreamEnd> ends = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ends.add(new StreamEnd(frames.get(i), last[i]));
    }
    return ends;
  }

  /**
   * Reads frames up to the peer's first (non-ACK) SETTINGS frame and returns the value it gives
   * {@code id}, or {@code absent} if it does not mention it. Call before reading anything else.
   */
  int awaitPeerSetting(int id, int absent) throws IOException {
    while (true) {
      Frame frame = readFrame();
      if (frame == null) {
        throw new AssertionError("connection closed before the peer's SETTINGS");
      }
      if (frame.type() == SETTINGS && (frame.flags() & FLAG_ACK) == 0) {
        ByteBuffer settings = ByteBuffer.wrap(frame.payload());
        int value = absent;
        while (settings.remaining() >= 6) {
          int settingId = settings.getShort() & 0xffff;
          int settingValue = settings.getInt();
          if (settingId == id) {
            value = settingValue;
          }
        }
        return value;
      }
    }
  }

  /** The last of {@code frames} of type {@code type}, or null if there is none. */
  static Frame lastOfType(List<Frame> frames, int type) {
    Frame last = null;
    for (Frame frame : frames) {
      if (frame.type() == type) {
        last = frame;
      }
    }
    return last;
  }

  /** Reads frames until the first one {@code type}, returning it, or null at the end. */
  Frame awaitFrame(int type) throws IOException {
    while (true) {
      Frame frame = readFrame();
      if (frame == null || frame.type() == type) {
        return frame;
      }
    }
  }

  /**
   * Reads until the server closes the connection and returns every frame it sent; fails if the
   * server keeps it open for {@link Await#TIMEOUT}.
   */
  List<Frame> awaitClose() throws IOException {
    List<Frame> frames = new ArrayList<>();
    for (Frame frame = readFrame(); frame != null; frame = readFrame()) {
      frames.add(frame);
    }
    return frames;
  }

  /**
   * Reads raw bytes until the server closes the connection (for servers answering non-HTTP/2 input,
   * which may not answer in frames); fails if it stays open for {@link Await#TIMEOUT}.
   */
  byte[] awaitCloseRaw() throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] chunk = new byte[4096];
    InputStream raw = socket.getInputStream();
    try {
      for (int n = raw.read(chunk); n >= 0; n = raw.read(chunk)) {
        received.write(chunk, 0, n);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError(
          "the server kept the connection open for "
              + Await.TIMEOUT
              + " after receiving bad input; it sent: "
              + received,
          e);
    } catch (IOException e) {
      // A reset connection is closed too.
    }
    eof = true;
    return received.toByteArray();
  }

  private Frame readRawFrame() throws IOException {
    if (eof) {
      return null;
    }
    byte[] header = new byte[9];
    try {
      in.readFully(header);
      int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
      byte[] payload = new byte[length];
      in.readFully(payload);
      int streamId = ByteBuffer.wrap(header, 5, 4).getInt() & 0x7fffffff;
      return new Frame(header[3] & 0xff, header[4] & 0xff, streamId, payload, Map.of());
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no frame from the peer within " + Await.TIMEOUT, e);
    } catch (EOFException e) {
      eof = true;
      return null;
    } catch (IOException e) {
      if (socket.isClosed()) {
        throw e;
      }
      // Reset by the peer: as closed as can be.
      eof = true;
      return null;
    }
  }

  /** The header block fragment of a HEADERS frame, without padding and priority fields. */
  private static byte[] headerFragment(Frame frame) {
    byte[] payload = frame.payload();
    int start = 0;
    int end = payload.length;
    if ((frame.flags() & 0x8) != 0) { // PADDED
      int padLength = payload[0] & 0xff;
      start = 1;
      end -= padLength;
    }
    if ((frame.flags() & 0x20) != 0) { // PRIORITY
      start += 5;
    }
    byte[] fragment = new byte[end - start];
    System.arraycopy(payload, start, fragment, 0, fragment.length);
    return fragment;
  }

  private Map<String, String> decode(int streamId, ByteArrayOutputStream block) {
    ByteBuf buffer = Unpooled.wrappedBuffer(block.toByteArray());
    try {
      Http2Headers decoded = hpackDecoder.decodeHeaders(streamId, buffer);
      Map<String, String> headers = new LinkedHashMap<>();
      for (Map.Entry<CharSequence, CharSequence> entry : decoded) {
        headers.merge(
            entry.getKey().toString(), entry.getValue().toString(), (a, b) -> a + "," + b);
      }
      return headers;
    } catch (Http2Exception e) {
      throw new AssertionError("the peer sent a header block that does not decode", e);
    } finally {
      buffer.release();
    }
  }

  /** Whether the peer closed the connection (as far as reading has seen). */
  boolean closedByServer() {
    return eof;
  }

  /** Closes the connection with a TCP RST (SO_LINGER 0), as a peer that crashed or aborted. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
