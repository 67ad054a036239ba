package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Compares what protoc-gen-tern generates for the test protos with the expected outputs committed
 * under {@code src/test/resources/golden}. After an intended change to the output, regenerate them
 * with {@code mvn -pl tern-compiler verify -Dtern.golden.update=true} and review the diff.
 */
class GoldenFilesTest {

  @Test
  void generatedFilesMatchTheGoldenFiles() throws Exception {
    Path out = Protoc.newWorkDir("golden");
    Protoc.generate(Protoc.SERVICE_PROTOS, out, null);
    List<String> generated = Protoc.listFiles(out);

    if (Boolean.getBoolean("tern.golden.update")) {
      for (String file : Protoc.listFiles(Protoc.GOLDEN_DIR)) {
        Files.delete(Protoc.GOLDEN_DIR.resolve(file));
      }
      for (String file : generated) {
        Path target = Protoc.GOLDEN_DIR.resolve(file);
        Files.createDirectories(target.getParent());
        Files.copy(out.resolve(file), target);
      }
    }

    assertThat(generated)
        .as("generated files vs. files under %s", Protoc.GOLDEN_DIR)
        .containsExactlyElementsOf(Protoc.listFiles(Protoc.GOLDEN_DIR));
    for (String file : generated) {
      assertThat(Files.readString(out.resolve(file), StandardCharsets.UTF_8))
          .as("%s (regenerate with -Dtern.golden.update=true if the change is intended)", file)
          .isEqualTo(Files.readString(Protoc.GOLDEN_DIR.resolve(file), StandardCharsets.UTF_8));
    }
  }
}
