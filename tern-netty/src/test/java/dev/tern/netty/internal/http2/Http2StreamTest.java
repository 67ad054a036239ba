package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;
import static dev.tern.netty.internal.http2.Http2FrameException.STREAM_CLOSED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.netty.internal.http2.Http2Stream.State;
import org.junit.jupiter.api.Test;

/** The stream states of RFC 9113 section 5.1, and the errors for frames a state does not allow. */
class Http2StreamTest {
  private final Http2Stream stream = new Http2Stream(1, 65_535, 65_535);

  private static void assertStreamError(ThrowingCall call, long code, String reason) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            Http2FrameException.class,
            e -> {
              assertThat(e.connectionError()).isFalse();
              assertThat(e.streamId()).isEqualTo(1);
              assertThat(e.errorCode()).isEqualTo(code);
            })
        .hasMessageContaining(reason);
  }

  interface ThrowingCall {
    void run() throws Exception;
  }

  @Test
  void serverSide() throws Http2FrameException {
    assertThat(stream.state()).isEqualTo(State.IDLE);
    assertThat(stream.receiveHeaders(false)).as("trailers").isFalse();
    assertThat(stream.state()).isEqualTo(State.OPEN);
    stream.receiveData(true);
    assertThat(stream.state()).isEqualTo(State.HALF_CLOSED_REMOTE);
    assertStreamError(() -> stream.receiveData(false), STREAM_CLOSED, "after the peer ended it");
    assertStreamError(() -> stream.receiveHeaders(true), STREAM_CLOSED, "after the peer ended it");
    stream.sendHeaders(false);
    stream.sendEndStream();
    assertThat(stream.state()).isEqualTo(State.CLOSED);
    assertThatThrownBy(() -> stream.sendHeaders(true)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void clientSide() throws Http2FrameException {
    stream.sendHeaders(true);
    assertThat(stream.state()).isEqualTo(State.HALF_CLOSED_LOCAL);
    assertThatThrownBy(stream::sendEndStream).isInstanceOf(IllegalStateException.class);
    assertThat(stream.receiveHeaders(false)).isFalse();
    stream.receiveData(false);
    assertStreamError(() -> stream.receiveHeaders(false), PROTOCOL_ERROR, "without END_STREAM");
    assertThat(stream.receiveHeaders(true)).as("trailers").isTrue();
    assertThat(stream.state()).isEqualTo(State.CLOSED);
  }

  @Test
  void dataBeforeHeadersIsAProtocolError() {
    stream.sendHeaders(false);
    assertStreamError(() -> stream.receiveData(false), PROTOCOL_ERROR, "before its HEADERS");
  }

  @Test
  void resetClosesFromAnyState() throws Http2FrameException {
    stream.receiveHeaders(false);
    stream.close();
    assertThat(stream.isClosed()).isTrue();
    assertStreamError(() -> stream.receiveData(false), STREAM_CLOSED, "(CLOSED)");
  }
}
