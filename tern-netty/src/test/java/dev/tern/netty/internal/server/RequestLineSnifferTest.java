package dev.tern.netty.internal.server;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.netty.internal.server.RequestLineSniffer.Verdict;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestLineSnifferTest {
  private static final int LIMIT = 64;

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          "GET / HTTP/1.1\\r\\n"                  | HTTP1
          "POST /a.b/C?x=%20 HTTP/1.0\\n"         | HTTP1
          "\\r\\nGET / HTTP/1.1\\r\\n"            | HTTP1
          "M-SEARCH * HTTP/1.1\\r\\n"             | HTTP1
          "G"                                     | UNDECIDED
          "GET /pa"                               | UNDECIDED
          "GET / HTTP/1."                         | UNDECIDED
          "GET / HTTP/1.1\\r"                     | UNDECIDED
          "INVALID CONNECTION PREFACE\\r\\n\\r\\n" | NOT_HTTP1
          "PRI * HTTP/2.0\\r\\n"                  | NOT_HTTP1
          "\\u0016\\u0003\\u0001\\u0002\\u0000"   | NOT_HTTP1
          "GET\\t/ HTTP/1.1\\r\\n"                | NOT_HTTP1
          " GET / HTTP/1.1\\r\\n"                 | NOT_HTTP1
          "GET  HTTP/1.1\\r\\n"                   | NOT_HTTP1
          "GET / HTTP/1.1 extra\\r\\n"            | NOT_HTTP1
          "GET / HTTP/1.x\\r\\n"                  | NOT_HTTP1
          "GET /\\r\\n"                           | NOT_HTTP1
          "GET / HTTP/1.1\\rX"                    | NOT_HTTP1
          """)
  void judgesTheFirstBytes(String escaped, Verdict expected) {
    assertThat(RequestLineSniffer.classify(bytes(unescape(escaped)), LIMIT)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"GET /", "GETGETGET"})
  void aValidStartLongerThanTheLimitIsLeftToTheHttp1Codec(String prefix) {
    ByteBuf long1 = bytes(prefix + "a".repeat(LIMIT));
    assertThat(RequestLineSniffer.classify(long1, LIMIT)).isEqualTo(Verdict.HTTP1);
  }

  @ParameterizedTest
  @CsvSource({"0", "3"})
  void readsFromTheReaderIndexWithoutConsuming(int skipped) {
    ByteBuf buf = bytes("x".repeat(skipped) + "GET / HTTP/1.1\r\n");
    buf.skipBytes(skipped);
    assertThat(RequestLineSniffer.classify(buf, LIMIT)).isEqualTo(Verdict.HTTP1);
    assertThat(buf.readerIndex()).isEqualTo(skipped);
  }

  private static ByteBuf bytes(String text) {
    return Unpooled.wrappedBuffer(text.getBytes(ISO_8859_1));
  }

  private static String unescape(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char next = s.charAt(++i);
      switch (next) {
        case 'r' -> out.append('\r');
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> throw new IllegalArgumentException("escape: " + next);
      }
    }
    return out.toString();
  }
}
