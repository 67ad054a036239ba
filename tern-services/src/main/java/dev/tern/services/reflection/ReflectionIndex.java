package dev.tern.services.reflection;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.protobuf.ProtoFileDescriptorSupplier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * What reflection can tell about a set of services: their names, and every {@code .proto} file
 * reachable from them (the files declaring them and, transitively, their imports), indexed by file
 * name, by symbol and by extension.
 *
 * <p>Only services whose {@link dev.tern.ServiceDescriptor#getSchemaDescriptor() schema descriptor}
 * is a {@link ProtoFileDescriptorSupplier} (as generated code attaches) take part; others cannot be
 * described and are left out. When two services or files share a name, the first one met wins, so
 * the builder's services win over the fallback registry's, as they do for calls.
 *
 * <p>Symbols indexed: services, methods ({@code pkg.Service.Method}), messages and nested messages,
 * enums (top-level and nested) and extensions (top-level and declared inside a message).
 *
 * <p>Each file is sent as the descriptor set's file of that name, with its comments, when the
 * service was given one with the same content ({@link SourceInfoFiles}); otherwise as the
 * descriptor embedded in the generated code (a WARNING says when a set's file differs from it).
 *
 * <p>Immutable once built; thread-safe.
 */
final class ReflectionIndex {
  private static final Logger logger = Logger.getLogger(ReflectionIndex.class.getName());

  /** The services it was built from, to tell whether a later request can reuse it. */
  private final List<ServerServiceDefinition> services;

  private final List<String> serviceNames;

  // Filled by the constructor only; never changed afterwards (final fields publish them safely).
  private final Map<String, FileDescriptor> filesByName = new HashMap<>();
  private final Map<String, ByteString> servedByName = new HashMap<>();
  private final Map<String, FileDescriptor> filesBySymbol = new HashMap<>();
  private final Set<String> messageNames = new HashSet<>();

  /** Containing message's full name, then extension number, to the file declaring it. */
  private final Map<String, Map<Integer, FileDescriptor>> extensions = new HashMap<>();

  private final SourceInfoFiles sourceInfo;

  private ReflectionIndex(List<ServerServiceDefinition> services, SourceInfoFiles sourceInfo) {
    this.services = services;
    this.sourceInfo = sourceInfo;
    Set<String> names = new TreeSet<>();
    for (ServerServiceDefinition service : services) {
      Object schema = service.getServiceDescriptor().getSchemaDescriptor();
      if (schema instanceof ProtoFileDescriptorSupplier) {
        names.add(service.getServiceDescriptor().getName());
        addFile(((ProtoFileDescriptorSupplier) schema).getFileDescriptor());
      }
    }
    this.serviceNames = List.copyOf(names);
  }

  /**
   * Indexes {@code services}, in order (see the class doc for which win on conflicts), to be
   * described with the files of {@code sourceInfo} where they match.
   */
  static ReflectionIndex of(List<ServerServiceDefinition> services, SourceInfoFiles sourceInfo) {
    return new ReflectionIndex(List.copyOf(services), sourceInfo);
  }

  /** Whether this index was built from exactly {@code services} (same instances, same order). */
  boolean isFor(List<ServerServiceDefinition> services) {
    if (services.size() != this.services.size()) {
      return false;
    }
    for (int i = 0; i < services.size(); i++) {
      if (services.get(i) != this.services.get(i)) {
        return false;
      }
    }
    return true;
  }

  /** The names of the services that can be described, sorted. */
  List<String> serviceNames() {
    return serviceNames;
  }

  /** The file named {@code name}, or null. */
  FileDescriptor fileByName(String name) {
    return filesByName.get(name);
  }

  /** What to send for {@code file}, a file of this index: its descriptor, serialized. */
  ByteString served(FileDescriptor file) {
    return servedByName.get(file.getName());
  }

  /** The file that declares the fully qualified {@code symbol}, or null. */
  FileDescriptor fileContainingSymbol(String symbol) {
    return filesBySymbol.get(symbol);
  }

  /** The file declaring extension {@code number} of message {@code containingType}, or null. */
  FileDescriptor fileContainingExtension(String containingType, int number) {
    Map<Integer, FileDescriptor> numbers = extensions.get(containingType);
    return numbers == null ? null : numbers.get(number);
  }

  /**
   * The numbers of the known extensions of message {@code type}, ascending; null if {@code type} is
   * not a known message.
   */
  List<Integer> extensionNumbers(String type) {
    if (!messageNames.contains(type)) {
      return null;
    }
    Map<Integer, FileDescriptor> numbers = extensions.get(type);
    if (numbers == null) {
      return List.of();
    }
    List<Integer> sorted = new ArrayList<>(numbers.keySet());
    Collections.sort(sorted);
    return sorted;
  }

  private void addFile(FileDescriptor file) {
    if (filesByName.putIfAbsent(file.getName(), file) != null) {
      return; // already indexed, or another file of the same name came first
    }
    FileDescriptorProto withComments = sourceInfo.sameFile(file);
    if (withComments == null && sourceInfo.has(file.getName())) {
      logger.warning(
          "Server reflection serves "
              + file.getName()
              + " without comments: the descriptor set given for it differs from the generated"
              + " code's (built from another version of the .proto?)");
    }
    servedByName.put(
        file.getName(),
        withComments != null ? withComments.toByteString() : file.toProto().toByteString());
    for (ServiceDescriptor service : file.getServices()) {
      addSymbol(service.getFullName(), file);
      for (MethodDescriptor method : service.getMethods()) {
        addSymbol(method.getFullName(), file);
      }
    }
    for (Descriptor message : file.getMessageTypes()) {
      addMessage(file, message);
    }
    for (EnumDescriptor e : file.getEnumTypes()) {
      addSymbol(e.getFullName(), file);
    }
    for (FieldDescriptor extension : file.getExtensions()) {
      addExtension(file, extension);
    }
    for (FileDescriptor dependency : file.getDependencies()) {
      addFile(dependency);
    }
  }

  private void addMessage(FileDescriptor file, Descriptor message) {
    if (addSymbol(message.getFullName(), file)) {
      messageNames.add(message.getFullName());
    }
    for (Descriptor nested : message.getNestedTypes()) {
      addMessage(file, nested);
    }
    for (EnumDescriptor e : message.getEnumTypes()) {
      addSymbol(e.getFullName(), file);
    }
    for (FieldDescriptor extension : message.getExtensions()) {
      addExtension(file, extension);
    }
  }

  private void addExtension(FileDescriptor file, FieldDescriptor extension) {
    addSymbol(extension.getFullName(), file);
    extensions
        .computeIfAbsent(extension.getContainingType().getFullName(), k -> new HashMap<>())
        .putIfAbsent(extension.getNumber(), file);
  }

  /** Indexes {@code symbol} unless a file met earlier declares it; returns whether it did. */
  private boolean addSymbol(String symbol, FileDescriptor file) {
    return filesBySymbol.putIfAbsent(symbol, file) == null;
  }
}
