package dev.tern.console;

import java.util.List;
import java.util.Map;

/**
 * The example requests as the page reads them: {@code {"Service/Method": ["{...}", ...]}}, each
 * example a JSON string holding the request's JSON. Stateless.
 */
final class ExamplesJson {
  private ExamplesJson() {}

  static String write(Map<String, List<String>> examples) {
    StringBuilder out = new StringBuilder("{");
    for (Map.Entry<String, List<String>> entry : examples.entrySet()) {
      if (out.length() > 1) {
        out.append(',');
      }
      string(out, entry.getKey()).append(":[");
      List<String> list = entry.getValue();
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        string(out, list.get(i));
      }
      out.append(']');
    }
    return out.append('}').toString();
  }

  /** Appends {@code value} as a JSON string, safe inside HTML too; returns {@code out}. */
  static StringBuilder string(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"');
  }
}
