package dev.tern.channelz;

import java.util.Objects;

/**
 * A reference to an instrumented object, as parents list their children.
 *
 * @param id the object's channelz id
 * @param name its name (see {@link Instrumented#channelzName()})
 */
public record Ref(long id, String name) {
  /**
   * @throws IllegalArgumentException if {@code id} is not positive
   */
  public Ref {
    if (id <= 0) {
      throw new IllegalArgumentException("id must be > 0: " + id);
    }
    Objects.requireNonNull(name, "name");
  }
}
