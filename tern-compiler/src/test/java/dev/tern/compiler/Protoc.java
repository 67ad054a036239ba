package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs the real protoc (fetched by the build, path in system property {@code tern.protoc}) with
 * this module's plugin behind a launcher script, the way a user's build runs it. Also knows where
 * the test protos and golden files live.
 *
 * <p>Thread-safe: the one-time set-up is synchronized; each run uses its own output folders.
 */
final class Protoc {
  static final Path PROTO_DIR = Paths.get(System.getProperty("tern.proto.dir"));
  static final Path GOLDEN_DIR = Paths.get(System.getProperty("tern.golden.dir"));
  static final Path WORK_DIR = Paths.get(System.getProperty("tern.work.dir"));

  /** The test protos with services, relative to {@link #PROTO_DIR}. */
  static final List<String> SERVICE_PROTOS =
      List.of(
          "simple/greeter.proto",
          "streaming/streamer.proto",
          "options/options_default.proto",
          "options/custom_outer.proto",
          "options/no_package.proto",
          "nested/uses_imports.proto",
          "awkward/awkward.proto");

  /** The outcome of one protoc run. */
  record Result(int exitCode, String stderr) {}

  private static Path launcher;
  private static Path wellKnownTypes;

  private Protoc() {}

  /**
   * Runs protoc on {@code protos} (relative to {@code protoDir}) with the plugin writing to {@code
   * ternOut} and, if not null, protoc's own Java generator writing to {@code javaOut}.
   */
  static Result run(Path protoDir, List<String> protos, Path ternOut, Path javaOut)
      throws IOException, InterruptedException {
    Files.createDirectories(ternOut);
    List<String> command = new ArrayList<>();
    command.add(protoc().toString());
    command.add("--plugin=protoc-gen-tern=" + launcher());
    command.add("-I" + protoDir);
    command.add("-I" + wellKnownTypes());
    command.add("--tern_out=" + ternOut);
    if (javaOut != null) {
      Files.createDirectories(javaOut);
      command.add("--java_out=" + javaOut);
    }
    command.addAll(protos);
    Path stderr = Files.createTempFile(WORK_DIR, "protoc", ".err");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(stderr.toFile())
            .start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("protoc did not finish within 120 s: " + command);
    }
    return new Result(process.exitValue(), Files.readString(stderr, StandardCharsets.UTF_8));
  }

  /** Runs protoc on the test protos and asserts that it succeeded. */
  static void generate(List<String> protos, Path ternOut, Path javaOut)
      throws IOException, InterruptedException {
    Result result = run(PROTO_DIR, protos, ternOut, javaOut);
    assertThat(result.exitCode()).as("protoc failed: %s", result.stderr()).isZero();
  }

  /** The relative paths of the regular files under {@code dir}, sorted. */
  static List<String> listFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .map(file -> dir.relativize(file).toString().replace('\\', '/'))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** A fresh, empty folder under the module's build folder. */
  static Path newWorkDir(String prefix) throws IOException {
    Files.createDirectories(WORK_DIR);
    return Files.createTempDirectory(WORK_DIR, prefix);
  }

  /** The launcher protoc runs: this JVM's java with the plugin's classes and protobuf-java. */
  static synchronized Path launcher() throws IOException {
    if (launcher == null) {
      String classpath =
          location(ProtocGenTern.class.getProtectionDomain().getCodeSource())
              + java.io.File.pathSeparator
              + location(com.google.protobuf.Message.class.getProtectionDomain().getCodeSource());
      Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
      Files.createDirectories(WORK_DIR);
      Path script = WORK_DIR.resolve("protoc-gen-tern");
      Files.writeString(
          script,
          "#!/bin/sh\nexec '"
              + java
              + "' -cp '"
              + classpath
              + "' dev.tern.compiler.ProtocGenTern \"$@\"\n");
      if (!script.toFile().setExecutable(true)) {
        throw new IOException("cannot make " + script + " executable");
      }
      launcher = script;
    }
    return launcher;
  }

  /** The path of a class's jar or classes folder. */
  static Path location(CodeSource source) {
    try {
      return Paths.get(source.getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path protoc() throws IOException {
    Path protoc = Paths.get(System.getProperty("tern.protoc"));
    if (!Files.isExecutable(protoc) && !protoc.toFile().setExecutable(true)) {
      throw new IOException("cannot make " + protoc + " executable");
    }
    return protoc;
  }

  /** google/protobuf/*.proto, extracted from the protobuf-java jar (protoc's jar has none). */
  private static synchronized Path wellKnownTypes() throws IOException {
    if (wellKnownTypes == null) {
      Path dir = WORK_DIR.resolve("include");
      Path jar = location(com.google.protobuf.Message.class.getProtectionDomain().getCodeSource());
      try (JarFile jarFile = new JarFile(jar.toFile())) {
        for (JarEntry entry : java.util.Collections.list(jarFile.entries())) {
          if (entry.getName().startsWith("google/protobuf/")
              && entry.getName().endsWith(".proto")) {
            Path target = dir.resolve(entry.getName());
            Files.createDirectories(target.getParent());
            try (InputStream in = jarFile.getInputStream(entry)) {
              Files.write(target, in.readAllBytes());
            }
          }
        }
      }
      wellKnownTypes = dir;
    }
    return wellKnownTypes;
  }
}
