package dev.tern.netty.internal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * The calls of one connection that have not ended, from the start of each until its stream state
 * closes ({@link ServerHandler#streamClosed}), which may be after its HTTP/2 stream left the engine
 * (trailers waiting for the flush that reports them): what the connection's end, a shutdown and the
 * idle limit walk or count. A list threaded through the calls themselves, so a call costs no entry
 * or lookup here; its stream's slot is how a frame finds it.
 *
 * <p>Event loop only; not thread-safe.
 */
final class ConnectionCalls {
  private ConnectionCall first;
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  void add(ConnectionCall call) {
    call.next = first;
    if (first != null) {
      first.previous = call;
    }
    first = call;
    call.listed = true;
    size++;
  }

  /** Removes {@code call}; false if it was not listed (it ended already). */
  boolean remove(ConnectionCall call) {
    if (!call.listed) {
      return false;
    }
    if (call.previous != null) {
      call.previous.next = call.next;
    } else {
      first = call.next;
    }
    if (call.next != null) {
      call.next.previous = call.previous;
    }
    call.previous = null;
    call.next = null;
    call.listed = false;
    size--;
    return true;
  }

  /** The calls now: a copy, since ending a call removes it. */
  List<ConnectionCall> snapshot() {
    List<ConnectionCall> calls = new ArrayList<>(size);
    for (ConnectionCall call = first; call != null; call = call.next) {
      calls.add(call);
    }
    return calls;
  }
}
