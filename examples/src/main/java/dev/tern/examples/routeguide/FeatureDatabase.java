package dev.tern.examples.routeguide;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The route guide's known features, read from {@code route_guide_db.json} (a JSON array of {@code
 * {"name": ..., "location": {"latitude": ..., "longitude": ...}}}). A tiny JSON reader keeps the
 * example free of extra dependencies. Immutable once loaded; thread-safe. Public for the blocking
 * example ({@code dev.tern.examples.blocking}).
 */
public final class FeatureDatabase {
  private final List<Feature> features;

  private FeatureDatabase(List<Feature> features) {
    this.features = List.copyOf(features);
  }

  /** Loads the database shipped with the example. */
  public static FeatureDatabase load() {
    try (InputStream in = FeatureDatabase.class.getResourceAsStream("route_guide_db.json")) {
      if (in == null) {
        throw new IllegalStateException("route_guide_db.json is missing from the class path");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses a database from JSON text.
   *
   * @throws IllegalArgumentException if the text is not such an array
   */
  static FeatureDatabase parse(String json) {
    Object root = new JsonReader(json).readDocument();
    if (!(root instanceof List<?> entries)) {
      throw new IllegalArgumentException("json: expected an array of features");
    }
    List<Feature> features = new ArrayList<>();
    for (Object entry : entries) {
      Map<?, ?> feature = asObject(entry, "feature");
      Map<?, ?> location = asObject(feature.get("location"), "location");
      features.add(
          Feature.newBuilder()
              .setName(String.valueOf(feature.get("name")))
              .setLocation(
                  Point.newBuilder()
                      .setLatitude(asInt(location.get("latitude"), "latitude"))
                      .setLongitude(asInt(location.get("longitude"), "longitude")))
              .build());
    }
    return new FeatureDatabase(features);
  }

  /** Every feature, in file order. */
  public List<Feature> features() {
    return features;
  }

  /** The feature at {@code point}, or a feature with an empty name there if none is known. */
  public Feature featureAt(Point point) {
    for (Feature feature : features) {
      if (feature.getLocation().equals(point)) {
        return feature;
      }
    }
    return Feature.newBuilder().setLocation(point).build();
  }

  private static Map<?, ?> asObject(Object value, String what) {
    if (value instanceof Map<?, ?> map) {
      return map;
    }
    throw new IllegalArgumentException("json: " + what + " must be an object");
  }

  private static int asInt(Object value, String what) {
    if (value instanceof Long number && number == number.intValue()) {
      return number.intValue();
    }
    throw new IllegalArgumentException("json: " + what + " must be a 32-bit integer");
  }

  /** Reads objects, arrays, strings, integers, booleans and null: all the database needs. */
  private static final class JsonReader {
    private final String text;
    private int pos;

    JsonReader(String text) {
      this.text = text;
    }

    Object readDocument() {
      Object value = readValue();
      skipSpace();
      if (pos != text.length()) {
        throw error("trailing text");
      }
      return value;
    }

    private Object readValue() {
      skipSpace();
      if (pos >= text.length()) {
        throw error("unexpected end");
      }
      char c = text.charAt(pos);
      switch (c) {
        case '{':
          return readObject();
        case '[':
          return readArray();
        case '"':
          return readString();
        default:
          if (c == '-' || Character.isDigit(c)) {
            return readInteger();
          }
          return readWord();
      }
    }

    private Map<String, Object> readObject() {
      Map<String, Object> object = new LinkedHashMap<>();
      pos++;
      skipSpace();
      if (peek() == '}') {
        pos++;
        return object;
      }
      while (true) {
        skipSpace();
        String key = readString();
        skipSpace();
        expect(':');
        object.put(key, readValue());
        skipSpace();
        if (peek() == ',') {
          pos++;
        } else {
          expect('}');
          return object;
        }
      }
    }

    private List<Object> readArray() {
      List<Object> array = new ArrayList<>();
      pos++;
      skipSpace();
      if (peek() == ']') {
        pos++;
        return array;
      }
      while (true) {
        array.add(readValue());
        skipSpace();
        if (peek() == ',') {
          pos++;
        } else {
          expect(']');
          return array;
        }
      }
    }

    private String readString() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw error("unterminated string");
        }
        char c = text.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (pos >= text.length()) {
          throw error("unterminated escape");
        }
        char e = text.charAt(pos++);
        switch (e) {
          case 'n' -> out.append('\n');
          case 't' -> out.append('\t');
          case 'r' -> out.append('\r');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("short \\u escape");
            }
            out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> out.append(e);
        }
      }
    }

    private Long readInteger() {
      int start = pos;
      if (peek() == '-') {
        pos++;
      }
      while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
        pos++;
      }
      try {
        return Long.parseLong(text.substring(start, pos));
      } catch (NumberFormatException e) {
        throw error("bad integer");
      }
    }

    private Object readWord() {
      for (String word : new String[] {"true", "false", "null"}) {
        if (text.startsWith(word, pos)) {
          pos += word.length();
          return word.equals("null") ? null : Boolean.valueOf(word);
        }
      }
      throw error("unexpected character '" + text.charAt(pos) + "'");
    }

    private void skipSpace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    private char peek() {
      return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void expect(char c) {
      if (peek() != c) {
        throw error("expected '" + c + "'");
      }
      pos++;
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException("json: " + what + " at offset " + pos);
    }
  }
}
