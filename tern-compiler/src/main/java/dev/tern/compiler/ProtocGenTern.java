package dev.tern.compiler;

import com.google.protobuf.ExtensionRegistry;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorRequest;
import com.google.protobuf.compiler.PluginProtos.CodeGeneratorResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * {@code protoc-gen-tern}: the protoc plugin entry point. protoc writes a {@code
 * CodeGeneratorRequest} to standard input and reads a {@code CodeGeneratorResponse} from standard
 * output; every problem, including unreadable input, is reported through the response's {@code
 * error} field with exit status 0, which protoc shows to its user as {@code --tern_out: <error>}.
 */
public final class ProtocGenTern {
  private ProtocGenTern() {}

  /** Runs the plugin on standard input and output. */
  public static void main(String[] args) throws IOException {
    run(System.in, System.out);
    System.out.flush();
  }

  /**
   * Reads one request from {@code in} and writes the response to {@code out}.
   *
   * @throws IOException only if reading {@code in} or writing {@code out} fails
   */
  public static void run(InputStream in, OutputStream out) throws IOException {
    respond(in.readAllBytes()).writeTo(out);
    out.flush();
  }

  /** The response to the serialized request {@code requestBytes}; never throws. */
  static CodeGeneratorResponse respond(byte[] requestBytes) {
    CodeGeneratorRequest request;
    try {
      request = CodeGeneratorRequest.parseFrom(requestBytes, ExtensionRegistry.getEmptyRegistry());
    } catch (InvalidProtocolBufferException e) {
      return error(
          "protoc-gen-tern could not parse its input as a CodeGeneratorRequest ("
              + e.getMessage()
              + "); it is meant to be run by protoc: protoc --plugin=protoc-gen-tern=<path>"
              + " --tern_out=<dir> <file.proto>");
    }
    try {
      return new TernCodeGenerator().generate(request);
    } catch (RuntimeException e) {
      // A bug, or a request so inconsistent that protoc could not have sent it: still report it
      // through protoc rather than dying with a stack trace it would not show.
      return error("protoc-gen-tern failed on an unexpected input: " + e);
    }
  }

  private static CodeGeneratorResponse error(String message) {
    return CodeGeneratorResponse.newBuilder()
        .setSupportedFeatures(CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL_VALUE)
        .setError(message)
        .build();
  }
}
