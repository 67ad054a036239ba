package dev.tern.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user who compiles with {@code -Xlint:all -Werror} against tern-core, tern-netty and
 * tern-protobuf gets no warning from Tern's class files. Tern's build annotates lock-guarded fields
 * with Error Prone's {@code @GuardedBy}, whose jar is compile-only and so not on a user's class
 * path; javac warns when it reads that annotation on a class it loads. This compiles a source that
 * names every public class of the exported packages, on this test's class path less that jar.
 */
class StrictUserCompileTest {
  private static final List<String> EXPORTED_PACKAGES =
      List.of(
          "dev/tern/",
          "dev/tern/stub/",
          "dev/tern/spi/",
          "dev/tern/inprocess/",
          "dev/tern/tls/",
          "dev/tern/netty/",
          "dev/tern/protobuf/");

  @Test
  void everyPublicClassCompilesWithoutWarningsUnderXlintAllWerror(@TempDir Path dir)
      throws IOException {
    List<String> classPath = userClassPath();
    List<String> classes = publicClasses(classPath);
    assertThat(classes)
        .contains("dev.tern.Context.CancellableContext", "dev.tern.netty.NettyChannelBuilder");

    Path source = dir.resolve("UsesEveryClass.java");
    Files.writeString(
        source,
        "class UsesEveryClass {\n  static final Class<?>[] ALL = {\n"
            + classes.stream().map(c -> "    " + c + ".class").collect(Collectors.joining(",\n"))
            + "\n  };\n}\n");
    StringWriter out = new StringWriter();
    int status =
        ToolProvider.findFirst("javac")
            .orElseThrow()
            .run(
                new PrintWriter(out),
                new PrintWriter(out),
                "-Xlint:all",
                "-Werror",
                "-proc:none",
                "-d",
                dir.resolve("out").toString(),
                "-cp",
                String.join(File.pathSeparator, classPath),
                source.toString());

    assertThat(out.toString()).isEmpty();
    assertThat(status).isZero();
  }

  /** This test's class path without Error Prone's annotations, as a user's would be. */
  private static List<String> userClassPath() {
    List<String> entries = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("error_prone_annotations")) {
        entries.add(entry);
      }
    }
    return entries;
  }

  /** Public top-level and nested classes of the exported packages, by their source names. */
  private static List<String> publicClasses(List<String> classPath) throws IOException {
    List<String> found = new ArrayList<>();
    for (String entry : classPath) {
      for (String relative : classFileNames(Path.of(entry))) {
        String pkg = relative.substring(0, relative.lastIndexOf('/') + 1);
        String binaryName = relative.substring(0, relative.length() - ".class".length());
        if (EXPORTED_PACKAGES.contains(pkg)
            && !binaryName.matches(".*\\$[0-9].*") // anonymous or local
            && isPublicChain(binaryName.replace('/', '.'))) {
          found.add(binaryName.replace('/', '.').replace('$', '.'));
        }
      }
    }
    found.sort(null);
    return found;
  }

  /** The class files of a Tern class-path entry (a folder or a jar), as '/'-separated names. */
  private static List<String> classFileNames(Path entry) throws IOException {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(entry)) {
      try (Stream<Path> files = Files.walk(entry)) {
        files.forEach(
            f -> names.add(entry.relativize(f).toString().replace(File.separatorChar, '/')));
      }
    } else if (entry.getFileName().toString().startsWith("tern-")
        && entry.toString().endsWith(".jar")) {
      try (JarFile jar = new JarFile(entry.toFile())) {
        jar.stream().forEach(e -> names.add(e.getName()));
      }
    }
    names.removeIf(
        n -> !n.startsWith("dev/tern/") || !n.endsWith(".class") || n.startsWith("META-INF"));
    return names;
  }

  /** Whether the class and every class enclosing it are public, so a user can name it. */
  private static boolean isPublicChain(String binaryName) {
    try {
      for (Class<?> c =
              Class.forName(binaryName, false, StrictUserCompileTest.class.getClassLoader());
          c != null;
          c = c.getEnclosingClass()) {
        if (!java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
          return false;
        }
      }
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
