package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input reaches the protoc user as a clear error in the response, never as a crash. */
class MalformedRequestTest {

  @Test
  void unparseableInputIsReportedInTheResponse() throws IOException {
    CodeGeneratorResponse response = run(new byte[] {0x0A, (byte) 0xFF, (byte) 0xFF, 0x7F});
    assertThat(response.getError()).contains("could not parse").contains("CodeGeneratorRequest");
    assertThat(response.getFileList()).isEmpty();
  }

  @Test
  void emptyRequestGeneratesNothing() throws IOException {
    CodeGeneratorResponse response = run(new byte[0]);
    assertThat(response.hasError()).isFalse();
    assertThat(response.getFileList()).isEmpty();
    assertThat(response.getSupportedFeatures())
        .isEqualTo(CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE);
  }

  @Test
  void fileToGenerateMissingFromTheRequest() throws IOException {
    CodeGeneratorRequest request =
        CodeGeneratorRequest.newBuilder().addFileToGenerate("nowhere.proto").build();
    assertThat(run(request.toByteArray()).getError()).contains("nowhere.proto");
  }

  @Test
  void unresolvableMessageTypeNamesTheMethodAndType() throws IOException {
    FileDescriptorProto file =
        serviceFile("svc.proto", "Svc", ".pkg.Missing").toBuilder().setPackage("pkg").build();
    CodeGeneratorRequest request =
        CodeGeneratorRequest.newBuilder().addFileToGenerate("svc.proto").addProtoFile(file).build();
    assertThat(run(request.toByteArray()).getError())
        .contains("pkg.Svc/Call")
        .contains(".pkg.Missing");
  }

  @Test
  void unknownPluginOptionIsRejected() throws IOException {
    CodeGeneratorRequest request =
        CodeGeneratorRequest.newBuilder().setParameter("lite,fancy").build();
    assertThat(run(request.toByteArray()).getError())
        .contains("unknown protoc-gen-tern option \"fancy\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"AsyncService", "BlockingService"})
  void messageThatWouldBeHiddenByAGeneratedTypeIsReported(String generated) throws IOException {
    // Default package, messages as top-level classes: a message named AsyncService (or
    // BlockingService) would be hidden by the generated nested interface of that name.
    FileDescriptorProto file =
        serviceFile("hidden.proto", "Svc", "." + generated).toBuilder()
            .setOptions(FileOptions.newBuilder().setJavaMultipleFiles(true))
            .build();
    CodeGeneratorRequest request =
        CodeGeneratorRequest.newBuilder()
            .addFileToGenerate("hidden.proto")
            .addProtoFile(file)
            .build();
    assertThat(run(request.toByteArray()).getError())
        .contains("type named " + generated)
        .contains("rename the message");
  }

  @Test
  void protocShowsTheErrorForAClassNameClash(@org.junit.jupiter.api.io.TempDir Path protos)
      throws Exception {
    Files.writeString(
        protos.resolve("clash.proto"),
        "syntax = \"proto3\";\n"
            + "package clash;\n"
            + "option java_multiple_files = true;\n"
            + "service Echo { rpc Call(EchoTern) returns (EchoTern); }\n"
            + "message EchoTern {}\n");
    Protoc.Result result =
        Protoc.run(protos, List.of("clash.proto"), Protoc.newWorkDir("clash"), null);
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("--tern_out")
        .contains("clash.EchoTern")
        .contains("rename one of them");
  }

  @Test
  void pluginProcessAnswersGarbageWithAnErrorAndExitStatusZero() throws Exception {
    Process process =
        new ProcessBuilder(Protoc.launcher().toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    process.getOutputStream().write("this is not a protobuf".getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).isZero();
    assertThat(CodeGeneratorResponse.parseFrom(output).getError()).contains("could not parse");
  }

  private static FileDescriptorProto serviceFile(String name, String service, String type) {
    FileDescriptorProto.Builder file = FileDescriptorProto.newBuilder().setName(name);
    if (type.equals(".AsyncService") || type.equals(".BlockingService")) {
      file.addMessageType(DescriptorProto.newBuilder().setName(type.substring(1)));
    }
    return file.addService(
            ServiceDescriptorProto.newBuilder()
                .setName(service)
                .addMethod(
                    MethodDescriptorProto.newBuilder()
                        .setName("Call")
                        .setInputType(type)
                        .setOutputType(type)))
        .build();
  }

  private static CodeGeneratorResponse run(byte[] request) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProtocGenTern.run(new java.io.ByteArrayInputStream(request), out);
    return CodeGeneratorResponse.parseFrom(out.toByteArray());
  }
}
