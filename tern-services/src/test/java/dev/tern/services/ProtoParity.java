package dev.tern.services;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The wire-relevant shape of a .proto file, as lines that can be compared: package, messages with
 * every field's name, number, label, type and type name (also nested messages, enums and oneofs),
 * enum values, and service methods with their types and streaming. Options (Java packages,
 * go_package) and comments are left out: they do not reach the wire.
 *
 * <p>Comparing Tern's compiled descriptors with grpc-java's proves that the protos written here
 * have the standard names and numbers.
 */
final class ProtoParity {
  private ProtoParity() {}

  /**
   * The shape of {@code file}, leaving out the top-level messages and the methods named in {@code
   * skipped} (what one side has and the other does not yet).
   */
  static List<String> shape(FileDescriptor file, Set<String> skipped) {
    FileDescriptorProto proto = file.toProto();
    List<String> out = new ArrayList<>();
    out.add("package " + proto.getPackage());
    out.add("syntax " + proto.getSyntax());
    for (String dependency : proto.getDependencyList()) {
      out.add("import " + dependency);
    }
    for (DescriptorProto message : proto.getMessageTypeList()) {
      if (!skipped.contains(message.getName())) {
        message(out, "", message);
      }
    }
    for (EnumDescriptorProto e : proto.getEnumTypeList()) {
      enumeration(out, "", e);
    }
    for (ServiceDescriptorProto service : proto.getServiceList()) {
      out.add("service " + service.getName());
      service.getMethodList().stream()
          .filter(m -> !skipped.contains(m.getName()))
          .forEach(
              m ->
                  out.add(
                      "  rpc "
                          + m.getName()
                          + "("
                          + (m.getClientStreaming() ? "stream " : "")
                          + m.getInputType()
                          + ") returns ("
                          + (m.getServerStreaming() ? "stream " : "")
                          + m.getOutputType()
                          + ")"));
    }
    return out;
  }

  private static void message(List<String> out, String prefix, DescriptorProto message) {
    String name = prefix + message.getName();
    out.add("message " + name);
    message
        .getFieldList()
        .forEach(
            f ->
                out.add(
                    "  "
                        + f.getLabel()
                        + " "
                        + f.getType()
                        + " "
                        + f.getTypeName()
                        + " "
                        + f.getName()
                        + " = "
                        + f.getNumber()
                        + (f.hasOneofIndex()
                            ? " oneof " + message.getOneofDecl(f.getOneofIndex()).getName()
                            : "")));
    for (DescriptorProto nested : message.getNestedTypeList()) {
      message(out, name + ".", nested);
    }
    for (EnumDescriptorProto e : message.getEnumTypeList()) {
      enumeration(out, name + ".", e);
    }
  }

  private static void enumeration(List<String> out, String prefix, EnumDescriptorProto e) {
    out.add("enum " + prefix + e.getName());
    e.getValueList().forEach(v -> out.add("  " + v.getName() + " = " + v.getNumber()));
  }
}
