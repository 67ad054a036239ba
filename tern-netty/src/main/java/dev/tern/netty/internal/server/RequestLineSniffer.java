package dev.tern.netty.internal.server;

import io.netty.buffer.ByteBuf;

/**
 * Judges whether the first bytes of a connection that did not start with the HTTP/2 preface begin
 * an HTTP/1.x request line (RFC 9112 section 3: {@code method SP request-target SP HTTP/1.d}, after
 * any empty lines), reading no further than it must: a byte that cannot appear where it stands
 * decides at once (so a TLS ClientHello or other binary bytes are judged on their first byte), a
 * complete line decides, and a line that grows past the HTTP/1.1 handler's limit is left to that
 * handler, which answers 414.
 *
 * <p>Stateless; every method is a pure function of its arguments.
 */
final class RequestLineSniffer {
  /** What the bytes seen so far say. */
  enum Verdict {
    /** A request line, or the start of one too long to wait for: HTTP/1.x. */
    HTTP1,
    /** Bytes no HTTP/1.x request line starts with. */
    NOT_HTTP1,
    /** So far a valid start of a request line: wait for more bytes. */
    UNDECIDED
  }

  private static final byte[] VERSION_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

  private RequestLineSniffer() {}

  /**
   * Reads {@code in}'s readable bytes without consuming them.
   *
   * @param maxLine how many bytes may be read without a decision before the line is judged too long
   *     to be anything but an HTTP/1.x request line over the limit
   */
  static Verdict classify(ByteBuf in, int maxLine) {
    int start = in.readerIndex();
    int end = in.writerIndex();
    int i = start;
    while (i < end && isLineEnd(in.getByte(i))) {
      i++;
    }
    int methodStart = i;
    while (i < end && isTokenChar(in.getByte(i))) {
      i++;
    }
    if (i < end && (in.getByte(i) != ' ' || i == methodStart)) {
      return Verdict.NOT_HTTP1;
    }
    int targetStart = ++i;
    while (i < end && isTargetChar(in.getByte(i))) {
      i++;
    }
    if (i < end && (in.getByte(i) != ' ' || i == targetStart)) {
      return Verdict.NOT_HTTP1;
    }
    i++;
    for (int k = 0; k < VERSION_PREFIX.length && i < end; k++, i++) {
      if (in.getByte(i) != VERSION_PREFIX[k]) {
        return Verdict.NOT_HTTP1;
      }
    }
    if (i < end && !isDigit(in.getByte(i++))) {
      return Verdict.NOT_HTTP1;
    }
    if (i < end && in.getByte(i) == '\r') {
      i++;
    }
    if (i < end) {
      return in.getByte(i) == '\n' ? Verdict.HTTP1 : Verdict.NOT_HTTP1;
    }
    return end - start >= maxLine ? Verdict.HTTP1 : Verdict.UNDECIDED;
  }

  private static boolean isLineEnd(byte b) {
    return b == '\r' || b == '\n';
  }

  /** RFC 9110 section 5.6.2's tchar. */
  private static boolean isTokenChar(byte b) {
    if (isDigit(b) || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) {
      return true;
    }
    return switch (b) {
      case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~' -> true;
      default -> false;
    };
  }

  /** A visible ASCII character, or a byte above ASCII (left for the HTTP/1.1 codec to judge). */
  private static boolean isTargetChar(byte b) {
    return b > ' ' && b != 0x7f || b < 0;
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }
}
