package dev.tern.compiler;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link CodeGeneratorRequest} into a {@link CodeGeneratorResponse}: one {@code
 * <Service>Tern.java} per service of each file to generate. Problems are reported in the response's
 * {@code error} field, as protoc expects, never thrown.
 *
 * <p>Stateless; thread-safe.
 */
final class TernCodeGenerator {

  /** Generates the response for {@code request}. */
  CodeGeneratorResponse generate(CodeGeneratorRequest request) {
    CodeGeneratorResponse.Builder response =
        CodeGeneratorResponse.newBuilder()
            .setSupportedFeatures(CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE);
    try {
      boolean lite = parseOptions(request.getParameter());
      Map<String, FileDescriptorProto> files = new HashMap<>();
      for (FileDescriptorProto file : request.getProtoFileList()) {
        files.put(file.getName(), file);
      }
      JavaTypeResolver types = new JavaTypeResolver(request.getProtoFileList());
      for (String fileName : request.getFileToGenerateList()) {
        FileDescriptorProto file = files.get(fileName);
        if (file == null) {
          throw new GenerationException(
              "the request asks to generate " + fileName + " but does not contain that file");
        }
        generateFile(file, files.values(), types, lite, response);
      }
      return response.build();
    } catch (GenerationException e) {
      return CodeGeneratorResponse.newBuilder()
          .setSupportedFeatures(CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE)
          .setError(e.getMessage())
          .build();
    }
  }

  private static void generateFile(
      FileDescriptorProto file,
      Iterable<FileDescriptorProto> allFiles,
      JavaTypeResolver types,
      boolean lite,
      CodeGeneratorResponse.Builder response) {
    if (file.getServiceCount() == 0) {
      return;
    }
    SourceComments comments = new SourceComments(file);
    for (int i = 0; i < file.getServiceCount(); i++) {
      checkClassNameIsFree(file, i, allFiles);
      ServiceModel model = new ServiceModel(file, i, types, comments, lite);
      response.addFile(
          CodeGeneratorResponse.File.newBuilder()
              .setName(model.fileName())
              .setContent(new ServiceGenerator(model).generate()));
    }
  }

  /**
   * Parses the plugin options ({@code --tern_opt=...} or {@code --tern_out=OPTIONS:dir}). The only
   * option is {@code lite}, for messages generated with {@code --java_out=lite:}: they have no
   * descriptors, so the generated code attaches no proto schema. Returns whether it was given.
   */
  private static boolean parseOptions(String parameter) {
    boolean lite = false;
    for (String option : parameter.split(",", -1)) {
      String trimmed = option.trim();
      if (trimmed.equals("lite")) {
        lite = true;
      } else if (!trimmed.isEmpty()) {
        throw new GenerationException(
            "unknown protoc-gen-tern option \"" + trimmed + "\" (the only option is \"lite\")");
      }
    }
    return lite;
  }

  /** The generated class must not collide with a class java_out puts in the same package. */
  private static void checkClassNameIsFree(
      FileDescriptorProto file, int serviceIndex, Iterable<FileDescriptorProto> allFiles) {
    String javaPackage = JavaTypeResolver.javaPackage(file);
    String className = ServiceModel.className(file.getService(serviceIndex));
    for (FileDescriptorProto other : allFiles) {
      if (!JavaTypeResolver.javaPackage(other).equals(javaPackage)) {
        continue;
      }
      List<String> taken = JavaTypeResolver.topLevelClassNames(other);
      if (taken.contains(className)) {
        throw new GenerationException(
            file.getName()
                + ": service "
                + file.getService(serviceIndex).getName()
                + " would generate class "
                + JavaTypeResolver.qualify(javaPackage, className)
                + ", but "
                + other.getName()
                + " already generates a class of that name; rename one of them or set"
                + " java_package");
      }
    }
  }
}
