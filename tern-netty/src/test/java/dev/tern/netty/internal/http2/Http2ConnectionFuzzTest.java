package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import java.util.HashSet;
import java.util.Set;

/**
 * Fuzzes {@link Http2Connection}, server or client side, with arbitrary bytes from a hostile peer
 * in arbitrary chunks (a server's input starts with the client preface, so the fuzzer reaches the
 * frames). The listener answers every request the way a gRPC server would (headers, a message,
 * trailers) and consumes every DATA frame. Whatever the input: no exception, every byte given is
 * consumed, everything the connection writes parses as valid frames, and every buffer is released.
 * See docs/fuzzing.md.
 */
class Http2ConnectionFuzzTest {
  private static final byte[][] REQUEST =
      Http2TestPeer.fields(
          ":method", "POST", ":scheme", "http", ":path", "/tern.Echo/Say", ":authority", "x");

  @FuzzTest
  void answersAnyBytesWithValidFramesAndReleasesEverything(FuzzedDataProvider data) {
    boolean server = data.consumeBoolean();
    int[] chunkSizes = new int[data.consumeInt(1, 8)];
    for (int i = 0; i < chunkSizes.length; i++) {
      chunkSizes[i] = data.consumeInt(1, 64);
    }
    byte[] input = data.consumeRemainingAsBytes();

    TrackingAllocator alloc = new TrackingAllocator();
    ByteBuf out = alloc.buffer();
    Responder responder = new Responder(alloc, out);
    Http2Limits limits = Http2ConnectionTest.limits(4, 1000, 4096, 8192, 50, 20);
    Http2Connection connection = new Http2Connection(server, limits, responder, () -> 0);
    responder.connection = connection;
    Http2FrameReader check = new Http2FrameReader(1 << 20);
    try {
      connection.start(out);
      if (server) {
        out.skipBytes(out.readableBytes()); // its SETTINGS: checked below with the rest
        ByteBuf preface = alloc.buffer().writeBytes(Http2Connection.PREFACE);
        connection.receive(preface, out);
        preface.release();
      } else {
        out.skipBytes(Http2Connection.PREFACE.length);
        connection.openStream(out, REQUEST, false, null);
        connection.openStream(out, REQUEST, true, null);
      }
      int offset = 0;
      for (int i = 0; offset < input.length; i++) {
        int n = Math.min(chunkSizes[i % chunkSizes.length], input.length - offset);
        ByteBuf chunk = alloc.of(input, offset, n);
        offset += n;
        try {
          connection.receive(chunk, out);
          assertThat(chunk.isReadable()).isFalse();
        } finally {
          chunk.release();
        }
      }
      out.readerIndex(0);
      if (!server) {
        out.skipBytes(Http2Connection.PREFACE.length);
      }
      check.read(out, new RecordingListener());
    } catch (Http2FrameException e) {
      throw new AssertionError("the connection wrote an invalid frame", e);
    } finally {
      connection.close();
      check.close();
      out.release();
    }
    alloc.assertAllReleased();
  }

  /** Answers each request like a unary gRPC handler; consumes every DATA frame. */
  private static final class Responder implements Http2ConnectionListener {
    private final TrackingAllocator alloc;
    private final ByteBuf out;
    private final Set<Integer> answered = new HashSet<>();
    Http2Connection connection;

    Responder(TrackingAllocator alloc, ByteBuf out) {
      this.alloc = alloc;
      this.out = out;
    }

    @Override
    public HeaderSink onHeadersStart(Http2Stream stream, boolean trailers) {
      return (name, value, sensitive) -> {};
    }

    @Override
    public void onHeadersEnd(Http2Stream stream, boolean trailers, boolean endStream) {
      if (connection.server && answered.add(stream.id())) {
        connection.sendHeaders(out, stream.id(), Http2TestPeer.fields(":status", "200"), false);
        connection.sendData(out, stream.id(), alloc.buffer().writeZero(1500), false);
        connection.sendHeaders(out, stream.id(), Http2TestPeer.fields("grpc-status", "0"), true);
      }
    }

    @Override
    public void onHeaderListTooLarge(Http2Stream stream, boolean trailers, boolean endStream) {
      connection.resetStream(out, stream.id(), Http2FrameException.REFUSED_STREAM);
    }

    @Override
    public void onData(Http2Stream stream, ByteBuf data, int flowControlled, boolean endStream) {
      data.release();
      connection.consumed(out, stream.id(), flowControlled);
    }

    @Override
    public void onStreamReset(Http2Stream stream, long errorCode, boolean byPeer) {}

    @Override
    public void onGoAway(int lastStreamId, long errorCode, ByteBuf debugData) {}

    @Override
    public void onConnectionClosed(long errorCode, String reason) {}
  }
}
