package dev.tern.compiler;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.SourceCodeInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leading comments of a file's services and methods, from its {@code SourceCodeInfo} (protoc
 * sends it for the files to generate). Immutable after construction.
 */
final class SourceComments {
  /** {@code FileDescriptorProto.service} field number. */
  private static final int SERVICE_FIELD = 6;

  /** {@code ServiceDescriptorProto.method} field number. */
  private static final int METHOD_FIELD = 2;

  private final Map<List<Integer>, String> comments = new HashMap<>();

  SourceComments(FileDescriptorProto file) {
    for (SourceCodeInfo.Location location : file.getSourceCodeInfo().getLocationList()) {
      if (location.hasLeadingComments()) {
        comments.put(location.getPathList(), location.getLeadingComments());
      }
    }
  }

  /** The comment before service {@code serviceIndex}, or "". */
  String service(int serviceIndex) {
    return comments.getOrDefault(List.of(SERVICE_FIELD, serviceIndex), "");
  }

  /** The comment before method {@code methodIndex} of service {@code serviceIndex}, or "". */
  String method(int serviceIndex, int methodIndex) {
    return comments.getOrDefault(
        List.of(SERVICE_FIELD, serviceIndex, METHOD_FIELD, methodIndex), "");
  }
}
