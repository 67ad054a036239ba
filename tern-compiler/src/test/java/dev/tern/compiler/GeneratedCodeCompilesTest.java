package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Compiles what protoc's {@code java_out} and protoc-gen-tern generate for every test proto, with
 * the project's own strictness: {@code -Xlint:all -Werror}, Java 17.
 */
class GeneratedCodeCompilesTest {

  @Test
  void generatedCodeCompilesWithoutWarnings() throws Exception {
    Path sources = Protoc.newWorkDir("compile-src");
    Protoc.generate(allProtos(), sources, sources);
    Path classes = Protoc.newWorkDir("compile-classes");

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<File> files = new ArrayList<>();
    for (String file : Protoc.listFiles(sources)) {
      files.add(sources.resolve(file).toFile());
    }
    assertThat(files).extracting(File::getName).contains("StreamerTern.java", "Item.java");
    List<String> options =
        List.of(
            "--release",
            "17",
            "-encoding",
            "UTF-8",
            Runtime.version().feature() >= 21 ? "-Xlint:all,-this-escape" : "-Xlint:all",
            "-Werror",
            "-classpath",
            classpath(),
            "-d",
            classes.toString());
    boolean compiled;
    try (StandardJavaFileManager fileManager =
        compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      compiled =
          compiler
              .getTask(
                  null,
                  fileManager,
                  diagnostics,
                  options,
                  null,
                  fileManager.getJavaFileObjectsFromFiles(files))
              .call();
    }
    String report =
        diagnostics.getDiagnostics().stream()
            .map(
                d ->
                    d.getKind()
                        + " "
                        + d.getSource()
                        + ":"
                        + d.getLineNumber()
                        + " "
                        + d.getMessage(Locale.ROOT))
            .collect(Collectors.joining("\n"));
    assertThat(diagnostics.getDiagnostics())
        .as(report)
        .noneMatch(d -> d.getKind() != Diagnostic.Kind.NOTE);
    assertThat(compiled).as(report).isTrue();
    assertThat(classes.resolve("request/awkward/AwkwardTern$AwkwardImplBase.class")).exists();
  }

  private static List<String> allProtos() {
    List<String> protos = new ArrayList<>(Protoc.SERVICE_PROTOS);
    protos.add("nested/imported.proto");
    protos.add("awkward/awkward_types.proto");
    return protos;
  }

  /** What generated code needs: tern-core, tern-protobuf and protobuf-java, nothing else. */
  private static String classpath() throws IOException {
    return String.join(
        File.pathSeparator,
        location(dev.tern.Channel.class),
        location(dev.tern.protobuf.ProtoUtils.class),
        location(com.google.protobuf.Message.class));
  }

  private static String location(Class<?> type) {
    return Protoc.location(type.getProtectionDomain().getCodeSource()).toString();
  }
}
