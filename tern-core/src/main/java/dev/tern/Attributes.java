package dev.tern;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An immutable set of typed key/value pairs, used for transport and call attributes (see {@link
 * Grpc} for the standard keys). Keys compare by identity; values by {@link Object#equals}.
 *
 * <pre>{@code
 * static final Attributes.Key<String> ZONE = Attributes.Key.create("zone");
 *
 * Attributes attrs = Attributes.newBuilder().set(ZONE, "eu-1").build();
 * String zone = attrs.get(ZONE);
 * }</pre>
 *
 * <p>Immutable; thread-safe. {@link Builder} is not thread-safe.
 */
public final class Attributes {

  /** Attributes with no entries. */
  public static final Attributes EMPTY = new Attributes(Collections.emptyMap());

  private final Map<Key<?>, Object> data;

  private Attributes(Map<Key<?>, Object> data) {
    this.data = data;
  }

  /** Returns the value for {@code key}, or null if it is not set. */
  public <T> T get(Key<T> key) {
    // Safe: Builder.set(Key<T>, T) is the only way in, so the value's type matches its key.
    @SuppressWarnings("unchecked")
    T value = (T) data.get(key);
    return value;
  }

  /** Returns the keys that have values, as an unmodifiable set. */
  public Set<Key<?>> keys() {
    return Collections.unmodifiableSet(data.keySet());
  }

  /** Returns a builder with no entries. */
  public static Builder newBuilder() {
    return new Builder(EMPTY);
  }

  /** Returns a builder that starts with this instance's entries. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Equal when both have the same keys mapped to equal values. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof Attributes && data.equals(((Attributes) o).data);
  }

  @Override
  public int hashCode() {
    return data.hashCode();
  }

  /** Lists the entries as {@code {key=value, ...}} using the keys' debug strings (unordered). */
  @Override
  public String toString() {
    return data.toString();
  }

  /**
   * Identifies an attribute. Two keys are equal only if they are the same object, even with the
   * same debug string. Immutable; thread-safe.
   */
  public static final class Key<T> {
    private final String debugString;

    private Key(String debugString) {
      this.debugString = debugString;
    }

    /** Creates a new key; {@code debugString} is only used by {@link #toString()}. */
    public static <T> Key<T> create(String debugString) {
      return new Key<>(Objects.requireNonNull(debugString, "debugString"));
    }

    @Override
    public String toString() {
      return debugString;
    }
  }

  /**
   * Builds {@link Attributes}. Copies the base entries only on the first change, so a builder that
   * changes nothing returns its base instance. Not thread-safe.
   */
  public static final class Builder {
    /** The last instance built (or the starting one); the builder's state when newData is null. */
    private Attributes base;

    /** Pending changes on a private copy of base's entries; null until the first change. */
    private Map<Key<?>, Object> newData;

    private Builder(Attributes base) {
      this.base = base;
    }

    private Map<Key<?>, Object> data() {
      if (newData == null) {
        newData = new HashMap<>(base.data);
      }
      return newData;
    }

    /** Sets {@code key} to {@code value}, replacing any previous value; null is like discard. */
    public <T> Builder set(Key<T> key, T value) {
      Objects.requireNonNull(key, "key");
      if (value == null) {
        return discard(key);
      }
      data().put(key, value);
      return this;
    }

    /** Copies every entry of {@code other}, replacing values of keys present in both. */
    public Builder setAll(Attributes other) {
      Objects.requireNonNull(other, "other");
      if (!other.data.isEmpty()) {
        data().putAll(other.data);
      }
      return this;
    }

    /** Removes {@code key} if present. */
    public Builder discard(Key<?> key) {
      Objects.requireNonNull(key, "key");
      if (newData != null ? newData.containsKey(key) : base.data.containsKey(key)) {
        data().remove(key);
      }
      return this;
    }

    /** Returns the attributes built so far; the builder remains usable. */
    public Attributes build() {
      if (newData == null) {
        return base;
      }
      // An immutable copy, for its size: a few entries in one array, where the HashMap that
      // collected them takes a table and a node each (a connection's three transport attributes:
      // about 90 bytes instead of 225, held for the connection's life).
      base = newData.isEmpty() ? EMPTY : new Attributes(Map.copyOf(newData));
      // Later changes copy again, so they cannot leak into the instance just returned.
      newData = null;
      return base;
    }
  }
}
