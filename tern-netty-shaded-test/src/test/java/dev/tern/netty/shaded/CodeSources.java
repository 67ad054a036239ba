package dev.tern.netty.shaded;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Where a class was loaded from. */
final class CodeSources {
  private CodeSources() {}

  /** The jar (or folder) {@code type} was loaded from. */
  static Path of(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("not a file: " + type, e);
    }
  }

  /** The file name of the jar {@code type} was loaded from. */
  static String jarName(Class<?> type) {
    return of(type).getFileName().toString();
  }
}
