package dev.tern.compiler;

import java.util.List;

/** Accumulates Java source, two spaces per indentation level. Not thread-safe. */
final class SourceWriter {
  private final StringBuilder out = new StringBuilder(8192);
  private int indent;

  /** Writes {@code text} on its own line at the current indentation. */
  SourceWriter line(String text) {
    if (!text.isEmpty()) {
      out.append("  ".repeat(indent)).append(text);
    }
    out.append('\n');
    return this;
  }

  /** Writes an empty line. */
  SourceWriter blank() {
    out.append('\n');
    return this;
  }

  /** Writes {@code header + " {"} and indents what follows. */
  SourceWriter open(String header) {
    line(header + " {");
    indent++;
    return this;
  }

  /** Ends the block opened last. */
  SourceWriter close() {
    indent--;
    line("}");
    return this;
  }

  /** Indents what follows (for continuation lines). */
  SourceWriter indent() {
    indent += 2;
    return this;
  }

  /** Undoes {@link #indent()}. */
  SourceWriter outdent() {
    indent -= 2;
    return this;
  }

  /**
   * Writes a Javadoc comment: {@code summary} (trusted generator text), then the proto comment
   * {@code protoComment} (user text, escaped) in a {@code <pre>} block if it is not blank.
   */
  SourceWriter javadoc(String summary, String protoComment) {
    List<String> commentLines = commentLines(protoComment);
    if (commentLines.isEmpty()) {
      return line("/** " + summary + " */");
    }
    line("/**");
    line(" * " + summary);
    line(" *");
    line(" * <pre>");
    for (String commentLine : commentLines) {
      line(commentLine.isEmpty() ? " *" : " * " + JavaNames.escapeJavadoc(commentLine));
    }
    line(" * </pre>");
    return line(" */");
  }

  /** The comment's lines: one leading space (after {@code //}) and trailing blanks removed. */
  private static List<String> commentLines(String comment) {
    List<String> lines = new java.util.ArrayList<>();
    for (String raw : comment.split("\r?\n|\r", -1)) {
      String text = raw.stripTrailing();
      lines.add(text.startsWith(" ") ? text.substring(1) : text);
    }
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
      lines.remove(lines.size() - 1);
    }
    while (!lines.isEmpty() && lines.get(0).isEmpty()) {
      lines.remove(0);
    }
    return lines;
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
