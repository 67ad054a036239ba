package dev.tern.netty.internal.http2;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The other end of an {@link Http2Connection} under test, at the byte level: it writes frames with
 * its own {@link Http2FrameWriter} and HPACK encoder, feeds them to the connection in random
 * chunks, and reads what the connection answers back into frames (header blocks decoded). What the
 * connection tells its listener is recorded as lines of text. Every buffer comes from a {@link
 * TrackingAllocator}; {@link #close} checks all were released.
 */
final class Http2TestPeer implements AutoCloseable {
  final TrackingAllocator alloc = new TrackingAllocator();
  final long[] nanos = {0};
  final Events events = new Events();
  final Http2Connection connection;
  final Http2FrameWriter writer = new Http2FrameWriter();
  final HpackEncoder encoder = new HpackEncoder();
  private final HpackDecoder decoder = new HpackDecoder(1 << 20, 4096);
  private final Http2FrameReader reader = new Http2FrameReader(1 << 20);
  private final Random random;
  private final boolean server;
  private boolean prefaceSeen;

  Http2TestPeer(boolean server, Http2Limits limits, long seed) {
    this.server = server;
    this.random = new Random(seed);
    this.connection = new Http2Connection(server, limits, events, () -> nanos[0]);
  }

  static Http2TestPeer server() {
    return new Http2TestPeer(true, Http2Limits.defaults(), 42);
  }

  /**
   * Both prefaces, both SETTINGS and both acknowledgements.
   *
   * @return the frames the connection sent
   */
  List<String> handshake() {
    return handshake(new Http2Settings());
  }

  List<String> handshake(Http2Settings peerSettings) {
    ByteBuf out = alloc.buffer();
    connection.start(out);
    List<String> frames = new ArrayList<>(read(out));
    ByteBuf in = alloc.buffer();
    if (server) {
      in.writeBytes(Http2Connection.PREFACE);
    }
    writer.writeSettings(in, peerSettings);
    writer.writeSettingsAck(in);
    frames.addAll(send(in));
    events.lines.clear();
    return frames;
  }

  /** A buffer to write frames into, for {@link #send}. */
  ByteBuf frames() {
    return alloc.buffer();
  }

  /** A header block of {@code namesAndValues}, encoded by the peer's encoder. */
  ByteBuf block(String... namesAndValues) {
    ByteBuf block = alloc.buffer();
    encoder.beginBlock(block);
    for (int i = 0; i < namesAndValues.length; i += 2) {
      encoder.header(block, bytes(namesAndValues[i]), bytes(namesAndValues[i + 1]), false);
    }
    return block;
  }

  /** Writes HEADERS of {@code namesAndValues} into {@code frames}. */
  ByteBuf headers(ByteBuf frames, int streamId, boolean endStream, String... namesAndValues) {
    ByteBuf block = block(namesAndValues);
    writer.writeHeaders(frames, streamId, block, endStream);
    block.release();
    return frames;
  }

  ByteBuf data(ByteBuf frames, int streamId, String text, boolean endStream) {
    byte[] bytes = bytes(text);
    ByteBuf data = alloc.of(bytes, 0, bytes.length);
    writer.writeData(frames, streamId, data, endStream);
    data.release();
    return frames;
  }

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  static byte[][] fields(String... namesAndValues) {
    byte[][] fields = new byte[namesAndValues.length][];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = bytes(namesAndValues[i]);
    }
    return fields;
  }

  /**
   * Feeds {@code in} to the connection in random chunks (released afterwards).
   *
   * @return the frames the connection answered with
   */
  List<String> send(ByteBuf in) {
    ByteBuf out = alloc.buffer();
    try {
      while (in.isReadable()) {
        int n = Math.min(in.readableBytes(), 1 + random.nextInt(random.nextBoolean() ? 9 : 200));
        ByteBuf chunk = alloc.buffer(n).writeBytes(in, n);
        try {
          connection.receive(chunk, out);
          assertThat(chunk.isReadable()).as("receive consumes every byte").isFalse();
        } finally {
          chunk.release();
        }
      }
    } finally {
      in.release();
    }
    return read(out);
  }

  /** The frames in {@code out} (released), as the peer reads them. */
  List<String> read(ByteBuf out) {
    List<String> frames = new ArrayList<>();
    try {
      if (!server && !prefaceSeen) {
        byte[] preface = new byte[Http2Connection.PREFACE.length];
        out.readBytes(preface);
        assertThat(preface).isEqualTo(Http2Connection.PREFACE);
        prefaceSeen = true;
      }
      RecordingListener listener =
          new RecordingListener() {
            @Override
            public void onHeaders(int streamId, ByteBuf headerBlock, boolean endStream) {
              StringBuilder fields = new StringBuilder();
              try {
                decoder.decode(
                    headerBlock,
                    (name, value, sensitive) ->
                        fields
                            .append(fields.length() == 0 ? "" : ", ")
                            .append(new String(name, UTF_8))
                            .append('=')
                            .append(new String(value, UTF_8)));
              } catch (HpackException e) {
                throw new AssertionError(e);
              }
              events.add(
                  "HEADERS " + streamId + " {" + fields + "}" + (endStream ? " END_STREAM" : ""));
            }

            @Override
            public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
              events.add(
                  "GOAWAY " + lastStreamId + " " + errorCode + " " + debugData.toString(UTF_8));
            }
          };
      reader.read(out, listener);
      frames.addAll(listener.events);
    } catch (Http2FrameException e) {
      throw new AssertionError("the connection wrote a bad frame", e);
    } finally {
      out.release();
    }
    return frames;
  }

  @Override
  public void close() {
    connection.close();
    reader.close();
    alloc.assertAllReleased();
  }

  /** The connection's listener: each call as a line. */
  static final class Events implements Http2ConnectionListener {
    final List<String> lines = new ArrayList<>();

    /**
     * What each stream's slot held at its DATA, reset and close ("call N" attached at its request).
     */
    final List<String> slots = new ArrayList<>();

    /** The streams closed, as handed to {@link #onStreamClosed}. */
    final List<Http2Stream> closed = new ArrayList<>();

    private StringBuilder fields;

    @Override
    public HeaderSink onHeadersStart(Http2Stream stream, boolean trailers) {
      fields = new StringBuilder();
      return (name, value, sensitive) ->
          fields
              .append(fields.length() == 0 ? "" : ", ")
              .append(new String(name, UTF_8))
              .append('=')
              .append(new String(value, UTF_8));
    }

    @Override
    public void onHeadersEnd(Http2Stream stream, boolean trailers, boolean endStream) {
      if (!trailers) {
        stream.attach("call " + stream.id());
      }
      lines.add(
          (trailers ? "trailers " : "headers ")
              + stream.id()
              + " {"
              + fields
              + "}"
              + (endStream ? " end" : ""));
    }

    @Override
    public void onHeaderListTooLarge(Http2Stream stream, boolean trailers, boolean endStream) {
      lines.add(
          "too large " + stream.id() + (trailers ? " trailers" : "") + (endStream ? " end" : ""));
    }

    @Override
    public void onData(Http2Stream stream, ByteBuf data, int flowControlled, boolean endStream) {
      slots.add("data " + stream.id() + " " + stream.attachment());
      try {
        lines.add(
            "data "
                + stream.id()
                + " "
                + data.toString(UTF_8)
                + " flow="
                + flowControlled
                + (endStream ? " end" : ""));
      } finally {
        data.release();
      }
    }

    @Override
    public void onStreamReset(Http2Stream stream, long errorCode, boolean byPeer) {
      slots.add("reset " + stream.id() + " " + stream.attachment());
      lines.add("reset " + stream.id() + " " + errorCode + (byPeer ? " by peer" : " here"));
    }

    @Override
    public void onStreamClosed(Http2Stream stream) {
      slots.add("closed " + stream.id() + " " + stream.attachment());
      closed.add(stream);
    }

    @Override
    public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {
      lines.add("goaway " + lastStreamId + " " + errorCode + " " + debugData.toString(UTF_8));
    }

    @Override
    public void onSettings(Http2Settings settings) {
      lines.add("settings " + settings);
    }

    @Override
    public void onSettingsAck() {
      lines.add("settings ack");
    }

    @Override
    public void onPingAck(long data) {
      lines.add("ping ack " + Long.toHexString(data));
    }

    @Override
    public void onConnectionClosed(long errorCode, String reason) {
      lines.add("closed " + errorCode + " " + reason);
    }
  }
}
