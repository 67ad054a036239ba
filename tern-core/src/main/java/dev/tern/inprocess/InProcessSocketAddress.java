package dev.tern.inprocess;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * The address of an in-process server: just its name. Two addresses are equal when their names are.
 *
 * <p>Immutable; thread-safe.
 */
public final class InProcessSocketAddress extends SocketAddress {
  private static final long serialVersionUID = 1L;

  private final String name;

  /**
   * An address for the in-process server registered under {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public InProcessSocketAddress(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
  }

  /** The server's name. */
  public String getName() {
    return name;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InProcessSocketAddress && name.equals(((InProcessSocketAddress) o).name);
  }

  @Override
  public int hashCode() {
    return name.hashCode();
  }

  /** The name itself. */
  @Override
  public String toString() {
    return name;
  }
}
