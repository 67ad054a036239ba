package dev.tern.http3.internal.frame;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class Http3FrameReaderTest {
  /** What the reader passed on, as text. */
  private final List<String> events = new ArrayList<>();

  private final Http3FrameReader.Listener recorder =
      new Http3FrameReader.Listener() {
        @Override
        public void onHeaders(ByteBuf block) {
          events.add("HEADERS " + ByteBufUtil.hexDump(block));
        }

        @Override
        public void onHeadersTooLarge(long length) {
          events.add("HEADERS too large " + length);
        }

        @Override
        public void onData(ByteBuf data) {
          events.add("DATA " + ByteBufUtil.hexDump(data));
          data.release();
        }

        @Override
        public void onSettings(long[] settings) {
          events.add("SETTINGS " + java.util.Arrays.toString(settings));
        }

        @Override
        public void onGoAway(long id) {
          events.add("GOAWAY " + id);
        }
      };

  private void feed(Http3FrameReader reader, String hex, boolean byteAtATime)
      throws Http3Exception {
    ByteBuf all = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex));
    if (!byteAtATime) {
      reader.receive(all);
      return;
    }
    while (all.isReadable()) {
      reader.receive(all.readSlice(1));
    }
  }

  @Test
  void readsHeadersDataAndSkipsUnknownFramesWholeOrByteByByte() throws Exception {
    // HEADERS(2 bytes), an unknown greasing frame 0x21 of 3 bytes, DATA(4), empty DATA.
    String stream = "01020000" + "2103aabbcc" + "000401020304" + "0000";
    for (boolean byteAtATime : new boolean[] {false, true}) {
      events.clear();
      Http3FrameReader reader = new Http3FrameReader(Http3FrameReader.Kind.REQUEST, recorder, 64);
      feed(reader, stream, byteAtATime);

      assertThat(String.join("", events.stream().filter(e -> e.startsWith("DATA")).toList()))
          .isEqualTo(byteAtATime ? "DATA 01DATA 02DATA 03DATA 04DATA " : "DATA 01020304DATA ");
      assertThat(events.get(0)).isEqualTo("HEADERS 0000");
      assertThat(reader.insideFrame()).isFalse();
    }
  }

  @Test
  void aStreamEndingInsideAFrameIsSeen() throws Exception {
    Http3FrameReader reader = new Http3FrameReader(Http3FrameReader.Kind.REQUEST, recorder, 64);
    feed(reader, "0004aa", false);

    assertThat(reader.insideFrame()).isTrue();
  }

  @Test
  void headersOverTheLimitAreSkippedAndReported() throws Exception {
    Http3FrameReader reader = new Http3FrameReader(Http3FrameReader.Kind.REQUEST, recorder, 2);
    feed(reader, "0103aabbcc" + "000101", false);

    assertThat(events).containsExactly("HEADERS too large 3", "DATA 01");
  }

  @Test
  void controlStreamMustStartWithSettingsAndTakesGoAway() throws Exception {
    Http3FrameReader control = new Http3FrameReader(Http3FrameReader.Kind.CONTROL, recorder, 0);
    feed(control, "0404" + "01000700" + "070104", false);

    assertThat(events).containsExactly("SETTINGS [1, 0, 7, 0]", "GOAWAY 4");
    Http3FrameReader noSettings = new Http3FrameReader(Http3FrameReader.Kind.CONTROL, recorder, 0);
    assertError(() -> feed(noSettings, "070104", false), Http3Errors.H3_MISSING_SETTINGS);
  }

  @Test
  void framesAStreamMayNotCarryAreUnexpected() {
    // SETTINGS and GOAWAY on a request stream, DATA on the control stream, HTTP/2's PING type,
    // a second SETTINGS, PUSH_PROMISE from a client.
    assertError(() -> request("0400"), Http3Errors.H3_FRAME_UNEXPECTED);
    assertError(() -> request("070100"), Http3Errors.H3_FRAME_UNEXPECTED);
    assertError(() -> request("0600"), Http3Errors.H3_FRAME_UNEXPECTED);
    assertError(() -> request("0500"), Http3Errors.H3_FRAME_UNEXPECTED);
    assertError(() -> control("0400" + "0000"), Http3Errors.H3_FRAME_UNEXPECTED);
    assertError(() -> control("0400" + "0400"), Http3Errors.H3_FRAME_UNEXPECTED);
  }

  @Test
  void badSettingsAndOversizedControlFramesCloseTheConnection() {
    assertError(() -> control("04020200"), Http3Errors.H3_SETTINGS_ERROR); // HTTP/2's 0x02
    assertError(() -> control("040401000100"), Http3Errors.H3_SETTINGS_ERROR); // twice
    assertError(() -> control("040140"), Http3Errors.H3_FRAME_ERROR); // truncated varint
    assertError(() -> control("04" + "8000ffff"), Http3Errors.H3_EXCESSIVE_LOAD);
  }

  private void request(String hex) throws Http3Exception {
    feed(new Http3FrameReader(Http3FrameReader.Kind.REQUEST, recorder, 64), hex, false);
  }

  private void control(String hex) throws Http3Exception {
    feed(new Http3FrameReader(Http3FrameReader.Kind.CONTROL, recorder, 0), hex, false);
  }

  private interface Feed {
    void run() throws Http3Exception;
  }

  private static void assertError(Feed feed, long code) {
    assertThatThrownBy(feed::run)
        .isInstanceOfSatisfying(
            Http3Exception.class,
            e -> {
              assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
              assertThat(e.connectionError()).isTrue();
            });
  }
}
