package dev.tern.netty.internal.http2;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The memory of recently closed streams ({@link Http2Streams#RECENT} of them), which starts empty
 * and grows as streams close: the last RECENT are remembered across each growth and once it wraps.
 */
class Http2StreamsTest {
  private final Http2Streams streams = new Http2Streams(true);

  /** Opens and closes the client's stream {@code id}, reset by this side when {@code resetHere}. */
  private void openAndClose(int id, boolean resetHere) throws Http2FrameException {
    streams.acceptPeerStreamId(id);
    Http2Stream stream = new Http2Stream(id, 65_535, 65_535);
    streams.addPeerStream(stream);
    streams.remove(stream, resetHere);
  }

  @Test
  void nothingClosedNothingRemembered() {
    assertThat(streams.recentlyClosed(1)).isFalse();
    assertThat(streams.recentlyResetHere(1)).isFalse();
  }

  @Test
  void remembersTheLastClosedStreamsThroughGrowthAndWrap() throws Http2FrameException {
    int total = 3 * Http2Streams.RECENT + 5;
    for (int i = 0; i < total; i++) {
      int id = 2 * i + 1;
      openAndClose(id, i % 3 == 0);
      // Every stream closed so far that is among the last RECENT is remembered, as it was closed.
      for (int j = 0; j <= i; j++) {
        int closed = 2 * j + 1;
        boolean kept = i - j < Http2Streams.RECENT;
        assertThat(streams.recentlyClosed(closed))
            .as("stream %d after %d", closed, id)
            .isEqualTo(kept);
        assertThat(streams.recentlyResetHere(closed))
            .as("stream %d reset here, after %d", closed, id)
            .isEqualTo(kept && j % 3 == 0);
      }
    }
    assertThat(streams.activePeerStreams()).isZero();
  }

  @Test
  void refusedStreamsShareTheMemory() throws Http2FrameException {
    streams.rememberReset(1);
    for (int i = 1; i < Http2Streams.RECENT; i++) {
      openAndClose(2 * i + 1, false);
    }
    assertThat(streams.recentlyResetHere(1)).isTrue();
    openAndClose(2 * Http2Streams.RECENT + 1, false);
    assertThat(streams.recentlyResetHere(1)).as("the oldest of RECENT + 1").isFalse();
    assertThat(streams.recentlyClosed(3)).isTrue();
  }
}
