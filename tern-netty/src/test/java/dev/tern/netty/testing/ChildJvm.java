package dev.tern.netty.testing;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** A command that runs a test's main class in a child JVM, on the test's own class path. */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java [jvmOptions] -cp <the test's class path> main args}. Surefire may run the tests on
   * a module path, which a child launched this way does not need: the child puts everything on its
   * class path (one unnamed module).
   */
  public static List<String> command(Class<?> main, List<String> jvmOptions, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath(main));
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }

  private static String classPath(Class<?> main) {
    Set<String> entries = new LinkedHashSet<>();
    try {
      entries.add(
          Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the test classes", e);
    }
    for (String property : List.of("jdk.module.path", "java.class.path")) {
      for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
        if (!entry.isEmpty()) {
          entries.add(entry);
        }
      }
    }
    return String.join(File.pathSeparator, entries);
  }
}
