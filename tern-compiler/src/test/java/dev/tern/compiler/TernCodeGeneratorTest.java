package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import org.junit.jupiter.api.Test;

/** Generator rules checked without protoc; the golden files cover whole outputs. */
class TernCodeGeneratorTest {

  private static final FileDescriptorProto FILE =
      FileDescriptorProto.newBuilder()
          .setName("dir/hello_world2x.proto")
          .setPackage("pkg")
          .addMessageType(DescriptorProto.newBuilder().setName("Msg"))
          .addService(
              ServiceDescriptorProto.newBuilder()
                  .setName("Svc")
                  .addMethod(
                      MethodDescriptorProto.newBuilder()
                          .setName("Do_it")
                          .setInputType(".pkg.Msg")
                          .setOutputType(".pkg.Msg")))
          .build();

  @Test
  void liteOptionLeavesOutTheProtoSchema() {
    String full = generate(FILE, "");
    String lite = generate(FILE, "lite");

    assertThat(full).contains("ProtoSchemas.forMethod(pkg.HelloWorld2X::getDescriptor");
    assertThat(lite)
        .doesNotContain("ProtoSchemas")
        .contains("ProtoUtils.marshaller(pkg.HelloWorld2X.Msg");
  }

  @Test
  void methodNamesAreCamelCasedLikeGrpcJava() {
    assertThat(generate(FILE, ""))
        .contains("public pkg.HelloWorld2X.Msg doIt(pkg.HelloWorld2X.Msg request)")
        .contains("getDoItMethod()")
        .contains("generateFullMethodName(SERVICE_NAME, \"Do_it\")");
  }

  @Test
  void outerClassNameFollowsProtocRules() {
    assertThat(JavaTypeResolver.outerClassName(FILE)).isEqualTo("HelloWorld2X");
    FileDescriptorProto clash =
        FILE.toBuilder()
            .setName("msg.proto")
            .setMessageType(
                0,
                DescriptorProto.newBuilder()
                    .setName("Other")
                    .addNestedType(DescriptorProto.newBuilder().setName("Msg")))
            .build();
    assertThat(JavaTypeResolver.outerClassName(clash)).isEqualTo("MsgOuterClass");
  }

  @Test
  void javadocTextCannotEscapeItsComment() {
    assertThat(JavaNames.escapeJavadoc("a */ b @c <d> & \\u000a"))
        .isEqualTo("a *&#47; b &#64;c &lt;d&gt; &amp; &#92;u000a");
  }

  private static String generate(FileDescriptorProto file, String parameter) {
    CodeGeneratorResponse response =
        new TernCodeGenerator()
            .generate(
                CodeGeneratorRequest.newBuilder()
                    .setParameter(parameter)
                    .addFileToGenerate(file.getName())
                    .addProtoFile(file)
                    .build());
    assertThat(response.getError()).isEmpty();
    assertThat(response.getFileList())
        .singleElement()
        .satisfies(f -> assertThat(f.getName()).isEqualTo("pkg/SvcTern.java"));
    return response.getFile(0).getContent();
  }
}
