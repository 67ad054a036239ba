package dev.tern.netty.internal.http2;

import static dev.tern.netty.internal.http2.Http2FrameException.PROTOCOL_ERROR;

import java.util.Arrays;
import java.util.List;

/**
 * A connection's streams and the stream-id rules of RFC 9113 section 5.1.1: a client opens odd
 * streams and a server even ones (Tern's never does: no push), each new id above every earlier one
 * of that side. A stream id then says how a frame on a stream that is not active must be treated:
 *
 * <ul>
 *   <li><b>idle</b> (above every id used): only HEADERS from the side that may open it (or
 *       PRIORITY) is allowed; anything else is a connection error PROTOCOL_ERROR (section 5.1);
 *   <li><b>closed</b>: frames still in flight on a stream this side reset are ignored (section
 *       5.4.2 allows for them); after the peer ended or reset it, DATA and HEADERS are
 *       STREAM_CLOSED. The last {@value #RECENT} closed ids are remembered for this; an older one
 *       is told apart from an id the peer skipped only by its number. An older one of this side's
 *       own streams (which this side may have reset many resets ago) is refused alone, a stream
 *       error, never the connection.
 * </ul>
 *
 * <p>It also counts the active streams each side opened, for SETTINGS_MAX_CONCURRENT_STREAMS. One
 * connection's, on its event loop; not thread-safe.
 */
final class Http2Streams {
  /**
   * How many closed streams are remembered: enough for frames in flight after a burst of resets.
   */
  static final int RECENT = 64;

  private static final int[] NONE = {};

  private final boolean server;

  /**
   * By id, without boxing; arrays made at the first stream (an idle connection has none), grown as
   * more streams are active at once.
   */
  private final IntMap<Http2Stream> active = new IntMap<>();

  private int lastPeerStreamId;
  private int nextLocalStreamId;
  private int activePeerStreams;
  private int activeLocalStreams;

  /**
   * Recently closed streams: the id, negated when this side reset it. Grown as streams close (an
   * idle connection has closed few), up to {@link #RECENT} entries, then a ring.
   */
  private int[] recent = NONE;

  private int recentNext;

  Http2Streams(boolean server) {
    this.server = server;
    this.nextLocalStreamId = server ? 2 : 1;
  }

  Http2Stream get(int id) {
    return active.get(id);
  }

  /** The active streams now: a copy, so that callers may close them while iterating. */
  List<Http2Stream> active() {
    return active.values();
  }

  boolean isPeerInitiated(int id) {
    return (id & 1) == (server ? 1 : 0);
  }

  int lastPeerStreamId() {
    return lastPeerStreamId;
  }

  int activePeerStreams() {
    return activePeerStreams;
  }

  int activeLocalStreams() {
    return activeLocalStreams;
  }

  /** Whether {@code id} was never used by either side. */
  boolean isIdle(int id) {
    return isPeerInitiated(id) ? id > lastPeerStreamId : id >= nextLocalStreamId;
  }

  /**
   * The peer's HEADERS on an idle stream: checks its id and records it as the highest.
   *
   * @throws Http2FrameException PROTOCOL_ERROR for an id the peer may not open
   */
  void acceptPeerStreamId(int id) throws Http2FrameException {
    if (!server) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR,
          "HEADERS opening stream " + id + ": a server opens no streams (push is refused)");
    }
    if (!isPeerInitiated(id)) {
      throw Http2FrameException.connection(
          PROTOCOL_ERROR, "HEADERS opening stream " + id + ": a client may only open odd streams");
    }
    lastPeerStreamId = id;
  }

  /** Registers a new active stream, opened by the peer (after {@link #acceptPeerStreamId}). */
  void addPeerStream(Http2Stream stream) {
    active.put(stream.id, stream);
    activePeerStreams++;
  }

  /** The id of this side's next stream, or -1 when ids ran out. */
  int nextLocalStreamId() {
    return nextLocalStreamId > 0 ? nextLocalStreamId : -1;
  }

  /** Registers a stream this side opens with {@link #nextLocalStreamId()}. */
  void addLocalStream(Http2Stream stream) {
    if (stream.id != nextLocalStreamId) {
      throw new IllegalStateException("stream " + stream.id + " is not the next local id");
    }
    nextLocalStreamId += 2; // negative after 2^31-1: no more streams
    active.put(stream.id, stream);
    activeLocalStreams++;
  }

  /** Forgets a closed stream, remembering whether this side reset it. */
  void remove(Http2Stream stream, boolean resetHere) {
    if (active.remove(stream.id) == null) {
      return;
    }
    if (isPeerInitiated(stream.id)) {
      activePeerStreams--;
    } else {
      activeLocalStreams--;
    }
    remember(resetHere ? -stream.id : stream.id);
  }

  /** Remembers a stream refused or reset before it became active (its frames are ignored too). */
  void rememberReset(int id) {
    remember(-id);
  }

  /** Adds a closed stream's entry: the array grows until it holds RECENT, then the oldest goes. */
  private void remember(int entry) {
    if (recentNext == recent.length) {
      if (recent.length < RECENT) {
        recent = Arrays.copyOf(recent, Math.min(Math.max(4, 2 * recent.length), RECENT));
      } else {
        recentNext = 0;
      }
    }
    recent[recentNext++] = entry;
  }

  /** Whether {@code id} is a recently closed stream that this side reset. */
  boolean recentlyResetHere(int id) {
    for (int r : recent) {
      if (r == -id) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code id} is a recently closed stream, whoever closed it. */
  boolean recentlyClosed(int id) {
    for (int r : recent) {
      if (r == id || r == -id) {
        return true;
      }
    }
    return false;
  }
}
