package dev.tern.netty.internal.client;

import io.netty.buffer.ByteBuf;

/**
 * Reads a proxy's answer to {@code CONNECT}: bytes in, as they arrive, until the blank line that
 * ends the response's head; then its status code and status line. The head may be at most {@link
 * #MAX_HEAD_BYTES} long; what comes after it (the server's first bytes through a tunnel, or the
 * body of a refusal) is left in the buffer for the caller.
 *
 * <p>Not thread-safe: one per connection, fed on its event loop.
 */
final class HttpConnectResponse {
  /**
   * The longest response head accepted. Answers to CONNECT are a status line and a few headers; 8
   * KiB is the head size HTTP servers commonly allow, and bounds what a hostile proxy can make us
   * hold.
   */
  static final int MAX_HEAD_BYTES = 8192;

  /** The head so far, one char per byte (ISO-8859-1). */
  private final StringBuilder head = new StringBuilder();

  private boolean complete;
  private int statusCode = -1;
  private String statusLine;

  /**
   * Reads head bytes from {@code in}, stopping after the blank line. True once the head is complete
   * (the reader index then points at the first byte after it).
   *
   * @throws IllegalStateException if the head is longer than {@link #MAX_HEAD_BYTES} or its status
   *     line is not {@code HTTP/1.x NNN ...}; the message says which, as a verb phrase whose
   *     subject is the proxy
   */
  boolean read(ByteBuf in) {
    while (!complete && in.isReadable()) {
      char c = (char) (in.readByte() & 0xff);
      head.append(c);
      if (head.length() > MAX_HEAD_BYTES) {
        throw new IllegalStateException(
            "answered CONNECT with a head longer than " + MAX_HEAD_BYTES + " bytes");
      }
      if (c == '\n' && endsWithBlankLine()) {
        complete = true;
        parseStatusLine();
      }
    }
    return complete;
  }

  private boolean endsWithBlankLine() {
    int n = head.length();
    return (n >= 2 && head.charAt(n - 2) == '\n')
        || (n >= 4 && head.charAt(n - 2) == '\r' && head.charAt(n - 3) == '\n');
  }

  private void parseStatusLine() {
    int end = head.indexOf("\n");
    String line = head.substring(0, end).strip();
    statusLine = printable(line);
    // HTTP/1.1 200 Connection established
    if (!line.startsWith("HTTP/1.") || line.length() < 12 || line.charAt(8) != ' ') {
      throw new IllegalStateException(
          "answered CONNECT with something other than HTTP/1.x: \"" + statusLine + "\"");
    }
    int code = 0;
    for (int i = 9; i < 12; i++) {
      char digit = line.charAt(i);
      if (digit < '0' || digit > '9') {
        throw new IllegalStateException(
            "answered CONNECT without a status code: \"" + statusLine + "\"");
      }
      code = code * 10 + (digit - '0');
    }
    if (line.length() > 12 && line.charAt(12) != ' ') {
      throw new IllegalStateException(
          "answered CONNECT without a status code: \"" + statusLine + "\"");
    }
    statusCode = code;
  }

  /** The status line with anything unprintable replaced, at most 200 characters, for messages. */
  private static String printable(String line) {
    String cut = line.length() > 200 ? line.substring(0, 200) + "..." : line;
    StringBuilder out = new StringBuilder(cut.length());
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return out.toString();
  }

  /** The status code, once {@link #read} returned true. */
  int statusCode() {
    return statusCode;
  }

  /** The status line (printable characters only), once {@link #read} returned true. */
  String statusLine() {
    return statusLine;
  }
}
