package dev.tern.services.reflection;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The files of descriptor sets built with {@code protoc --include_source_info}, which reflection
 * serves in place of the descriptors embedded in generated code (those keep no comments) for the
 * files of the same name and the same content.
 *
 * <p>Two descriptors of one file are "the same" when they differ only in what protoc adds to a
 * descriptor set and leaves out of generated code: {@code source_code_info} and the fields' {@code
 * json_name}. A file of a set that differs otherwise (built from another version of the {@code
 * .proto} than the code) is not served: reflection must describe what the server serves.
 *
 * <p>Immutable once built; thread-safe.
 */
final class SourceInfoFiles {
  static final SourceInfoFiles NONE = new SourceInfoFiles(Map.of());

  private final Map<String, FileDescriptorProto> files;

  private SourceInfoFiles(Map<String, FileDescriptorProto> files) {
    this.files = files;
  }

  /** Collects the files of several sets; see {@link #add}. Not thread-safe. */
  static final class Collector {
    private final Map<String, FileDescriptorProto> files = new LinkedHashMap<>();

    /**
     * Adds the files of {@code set}, the serialized bytes of a {@code FileDescriptorSet}.
     *
     * @throws IllegalArgumentException naming {@code argument} if the bytes are not a {@code
     *     FileDescriptorSet}, a file has no name, no file keeps source info, or a file has the name
     *     of a different file added before
     */
    void add(byte[] set, String argument) {
      FileDescriptorSet parsed;
      try {
        parsed = FileDescriptorSet.parseFrom(set);
      } catch (InvalidProtocolBufferException e) {
        throw new IllegalArgumentException(
            argument + " is not a FileDescriptorSet: " + e.getMessage(), e);
      }
      add(parsed, argument);
    }

    /** Adds the files of {@code set}; throws as {@link #add(byte[], String)}. */
    void add(FileDescriptorSet set, String argument) {
      // Bytes of something else often parse as a message made of unknown fields.
      if (set.getFileCount() == 0 || !set.getUnknownFields().asMap().isEmpty()) {
        throw new IllegalArgumentException(
            argument + " is not a FileDescriptorSet: it holds no file descriptors");
      }
      boolean sourceInfo = false;
      for (FileDescriptorProto file : set.getFileList()) {
        if (file.getName().isEmpty()) {
          throw new IllegalArgumentException(
              argument + " is not a FileDescriptorSet: it holds a file without a name");
        }
        sourceInfo |= file.hasSourceCodeInfo();
      }
      if (!sourceInfo) {
        throw new IllegalArgumentException(
            argument
                + " keeps no source info (comments): build it with protoc --include_source_info");
      }
      for (FileDescriptorProto file : set.getFileList()) {
        FileDescriptorProto before = files.get(file.getName());
        if (before != null && !before.equals(file)) {
          throw new IllegalArgumentException(
              argument
                  + ": "
                  + file.getName()
                  + " differs from the file of that name in a descriptor set added before");
        }
      }
      for (FileDescriptorProto file : set.getFileList()) {
        files.putIfAbsent(file.getName(), file);
      }
    }

    SourceInfoFiles build() {
      return files.isEmpty() ? NONE : new SourceInfoFiles(Map.copyOf(files));
    }
  }

  /**
   * The set's file of {@code file}'s name if it has the same content; null if there is none or it
   * differs (see {@link #has}).
   */
  FileDescriptorProto sameFile(FileDescriptor file) {
    FileDescriptorProto withSource = files.get(file.getName());
    if (withSource == null
        || !withoutSourceOnlyParts(withSource).equals(withoutSourceOnlyParts(file.toProto()))) {
      return null;
    }
    return withSource;
  }

  /** Whether a set holds a file named {@code name}. */
  boolean has(String name) {
    return files.containsKey(name);
  }

  /** {@code file} without its source info and its fields' JSON names. */
  private static FileDescriptorProto withoutSourceOnlyParts(FileDescriptorProto file) {
    FileDescriptorProto.Builder stripped = file.toBuilder().clearSourceCodeInfo();
    for (DescriptorProto.Builder message : stripped.getMessageTypeBuilderList()) {
      clearJsonNames(message);
    }
    stripped.getExtensionBuilderList().forEach(f -> f.clearJsonName());
    return stripped.build();
  }

  private static void clearJsonNames(DescriptorProto.Builder message) {
    message.getFieldBuilderList().forEach(f -> f.clearJsonName());
    message.getExtensionBuilderList().forEach(f -> f.clearJsonName());
    for (DescriptorProto.Builder nested : message.getNestedTypeBuilderList()) {
      clearJsonNames(nested);
    }
  }
}
