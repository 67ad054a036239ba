package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Fuzzes {@link Metadata} with arbitrary key names, values and sequences of operations, against a
 * plain list of (name, value) pairs: a name outside {@code [0-9a-z_.-]} (after lower-casing), an
 * ASCII key ending in {@code -bin} or a binary key not ending in it, and an ASCII value outside
 * printable ASCII are refused with an {@link IllegalArgumentException}, leaving the metadata as it
 * was; every other operation leaves exactly the entries the list has. See docs/fuzzing.md for long
 * runs.
 */
class MetadataFuzzTest {
  private static final Pattern NAME = Pattern.compile("[0-9a-z_.-]+");
  private static final Pattern PRINTABLE = Pattern.compile("[\\x20-\\x7E]*");
  private static final int MAX_ENTRIES_TO_MERGE = 64;

  @FuzzTest
  void behavesLikeAListOfEntries(FuzzedDataProvider data) {
    Metadata metadata = new Metadata();
    List<byte[][]> model = new ArrayList<>();
    List<Metadata.Key<?>> keys = new ArrayList<>();
    int operations = data.consumeInt(0, 32);
    for (int op = 0; op < operations && data.remainingBytes() > 0; op++) {
      int kind = data.consumeInt(0, 7);
      if (kind == 0 || keys.isEmpty()) {
        newKey(data, keys);
        continue;
      }
      Metadata.Key<?> key = keys.get(data.consumeInt(0, keys.size() - 1));
      byte[] name = key.name().getBytes(StandardCharsets.US_ASCII);
      switch (kind) {
        case 1:
          put(data, metadata, model, key);
          break;
        case 2:
          assertThat(metadata.containsKey(key)).isEqualTo(indexOf(model, name) >= 0);
          assertThat(valueBytes(key, metadata.get(key))).isEqualTo(lastValue(model, name));
          break;
        case 3:
          List<byte[]> all = values(model, name);
          Iterable<?> got = metadata.getAll(key);
          if (all.isEmpty()) {
            assertThat(got).isNull();
          } else {
            List<byte[]> gotBytes = new ArrayList<>();
            got.forEach(v -> gotBytes.add(valueBytes(key, v)));
            assertThat(gotBytes).containsExactlyElementsOf(all);
          }
          break;
        case 4:
          remove(metadata, model, key, name);
          break;
        case 5:
          Iterable<?> removed = metadata.removeAll(key);
          List<byte[]> expected = values(model, name);
          model.removeIf(e -> Arrays.equals(e[0], name));
          if (expected.isEmpty()) {
            assertThat(removed).isNull();
          } else {
            List<byte[]> removedBytes = new ArrayList<>();
            removed.forEach(v -> removedBytes.add(valueBytes(key, v)));
            assertThat(removedBytes).containsExactlyElementsOf(expected);
          }
          break;
        case 6:
          metadata.discardAll(key);
          model.removeIf(e -> Arrays.equals(e[0], name));
          break;
        default:
          // Merging into itself: a copy of the entries whose key is chosen, or of all. Each merge
          // may double the entries: past a few dozen, more only slows the fuzzer down.
          if (model.size() > MAX_ENTRIES_TO_MERGE) {
            break;
          }
          if (data.consumeBoolean()) {
            metadata.merge(metadata, Set.of(key));
            List<byte[][]> copies = new ArrayList<>();
            for (byte[][] e : model) {
              if (Arrays.equals(e[0], name)) {
                copies.add(e);
              }
            }
            model.addAll(copies);
          } else {
            Metadata copy =
                Metadata.fromSerialized(metadata.toSerialized(), metadata.headerCount());
            metadata.merge(copy);
            model.addAll(new ArrayList<>(model));
          }
          break;
      }
      checkSameEntries(metadata, model);
    }
  }

  private static void newKey(FuzzedDataProvider data, List<Metadata.Key<?>> keys) {
    String name = latin1(data.consumeBytes(data.consumeInt(0, 12)));
    boolean binary = data.consumeBoolean();
    String lower = name.toLowerCase(Locale.ROOT);
    boolean valid =
        NAME.matcher(lower).matches() && lower.endsWith(Metadata.BINARY_HEADER_SUFFIX) == binary;
    if (!valid) {
      assertThatThrownBy(() -> newKey(name, binary))
          .as("key '%s', binary %s", name, binary)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(name);
      return;
    }
    Metadata.Key<?> key = newKey(name, binary);
    assertThat(key.name()).isEqualTo(lower);
    assertThat(key.originalName()).isEqualTo(name);
    keys.add(key);
  }

  private static Metadata.Key<?> newKey(String name, boolean binary) {
    return binary
        ? Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER)
        : Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  @SuppressWarnings("unchecked")
  private static void put(
      FuzzedDataProvider data, Metadata metadata, List<byte[][]> model, Metadata.Key<?> key) {
    byte[] name = key.name().getBytes(StandardCharsets.US_ASCII);
    if (key.name().endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
      byte[] value = data.consumeBytes(data.consumeInt(0, 16));
      metadata.put((Metadata.Key<byte[]>) key, value);
      model.add(new byte[][] {name, value});
      return;
    }
    String value = latin1(data.consumeBytes(data.consumeInt(0, 16)));
    if (!PRINTABLE.matcher(value).matches()) {
      assertThatThrownBy(() -> metadata.put((Metadata.Key<String>) key, value))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("printable ASCII");
      return;
    }
    metadata.put((Metadata.Key<String>) key, value);
    model.add(new byte[][] {name, value.getBytes(StandardCharsets.US_ASCII)});
  }

  @SuppressWarnings("unchecked")
  private static void remove(
      Metadata metadata, List<byte[][]> model, Metadata.Key<?> key, byte[] name) {
    // Removes the first value, or (if absent) a value that is not there.
    int first = indexOf(model, name);
    byte[] target = first >= 0 ? model.get(first)[1] : new byte[] {'x'};
    boolean expected = first >= 0;
    if (!expected) {
      for (byte[][] e : model) {
        expected |= Arrays.equals(e[0], name) && Arrays.equals(e[1], target);
      }
    }
    boolean removed =
        key.name().endsWith(Metadata.BINARY_HEADER_SUFFIX)
            ? metadata.remove((Metadata.Key<byte[]>) key, target.clone())
            : metadata.remove(
                (Metadata.Key<String>) key, new String(target, StandardCharsets.US_ASCII));
    assertThat(removed).isEqualTo(expected);
    if (removed) {
      for (int i = 0; i < model.size(); i++) {
        if (Arrays.equals(model.get(i)[0], name) && Arrays.equals(model.get(i)[1], target)) {
          model.remove(i);
          break;
        }
      }
    }
  }

  private static void checkSameEntries(Metadata metadata, List<byte[][]> model) {
    byte[][] serialized = metadata.toSerialized();
    assertThat(metadata.headerCount()).isEqualTo(model.size());
    assertThat(serialized.length).isEqualTo(2 * model.size());
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < model.size(); i++) {
      assertThat(serialized[2 * i]).isEqualTo(model.get(i)[0]);
      assertThat(serialized[2 * i + 1]).isEqualTo(model.get(i)[1]);
      names.add(new String(model.get(i)[0], StandardCharsets.US_ASCII));
    }
    assertThat(metadata.keys()).containsExactlyElementsOf(names);
    assertThat(metadata.toString()).startsWith("Metadata(").endsWith(")");
  }

  /** Bytes as chars U+0000..U+00FF: printable ASCII, control characters and beyond. */
  private static String latin1(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  private static byte[] valueBytes(Metadata.Key<?> key, Object value) {
    if (value == null) {
      return null;
    }
    return key.name().endsWith(Metadata.BINARY_HEADER_SUFFIX)
        ? (byte[]) value
        : ((String) value).getBytes(StandardCharsets.US_ASCII);
  }

  private static int indexOf(List<byte[][]> model, byte[] name) {
    for (int i = 0; i < model.size(); i++) {
      if (Arrays.equals(model.get(i)[0], name)) {
        return i;
      }
    }
    return -1;
  }

  private static byte[] lastValue(List<byte[][]> model, byte[] name) {
    byte[] last = null;
    for (byte[][] e : model) {
      if (Arrays.equals(e[0], name)) {
        last = e[1];
      }
    }
    return last;
  }

  private static List<byte[]> values(List<byte[][]> model, byte[] name) {
    List<byte[]> values = new ArrayList<>();
    for (byte[][] e : model) {
      if (Arrays.equals(e[0], name)) {
        values.add(e[1]);
      }
    }
    return values;
  }
}
