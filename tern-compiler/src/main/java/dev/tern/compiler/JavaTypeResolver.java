package dev.tern.compiler;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Knows the Java class protoc's {@code java_out} generates for every message of every file in a
 * request, applying {@code java_package}, {@code java_multiple_files}, {@code java_outer_classname}
 * and the default outer class name (the file name in camel case, plus {@code OuterClass} when that
 * clashes with a type or service declared in the file).
 *
 * <p>Immutable after construction; used by one generator run on one thread.
 */
final class JavaTypeResolver {

  /** A message's Java class and whether using it triggers a deprecation warning. */
  record MessageClass(String qualifiedName, boolean deprecated) {}

  private final Map<String, MessageClass> messages = new HashMap<>();

  JavaTypeResolver(List<FileDescriptorProto> files) {
    for (FileDescriptorProto file : files) {
      String protoPrefix = file.getPackage().isEmpty() ? "." : "." + file.getPackage() + ".";
      String javaPrefix =
          file.getOptions().getJavaMultipleFiles()
              ? qualify(javaPackage(file), "")
              : qualify(javaPackage(file), outerClassName(file)) + ".";
      boolean fileDeprecated = file.getOptions().getDeprecated();
      for (DescriptorProto message : file.getMessageTypeList()) {
        addMessage(message, protoPrefix, javaPrefix, fileDeprecated);
      }
    }
  }

  private void addMessage(
      DescriptorProto message, String protoPrefix, String javaPrefix, boolean outerDeprecated) {
    String protoName = protoPrefix + message.getName();
    String javaName = javaPrefix + message.getName();
    boolean deprecated = outerDeprecated || message.getOptions().getDeprecated();
    messages.put(protoName, new MessageClass(javaName, deprecated));
    for (DescriptorProto nested : message.getNestedTypeList()) {
      addMessage(nested, protoName + ".", javaName + ".", deprecated);
    }
  }

  /**
   * The Java class of message type {@code protoName} (fully qualified with a leading dot, as in
   * {@code MethodDescriptorProto.input_type}).
   *
   * @throws GenerationException if no file of the request declares the type
   */
  MessageClass messageClass(String protoName, String usedBy) {
    MessageClass found = messages.get(protoName);
    if (found == null) {
      throw new GenerationException(
          usedBy
              + " uses message type "
              + protoName
              + ", which no file in the request declares (is an import missing?)");
    }
    return found;
  }

  /** The Java package of {@code file}'s classes: {@code java_package}, else the proto package. */
  static String javaPackage(FileDescriptorProto file) {
    return file.getOptions().hasJavaPackage()
        ? file.getOptions().getJavaPackage()
        : file.getPackage();
  }

  /** The simple name of the class holding {@code file}'s descriptor and (maybe) its messages. */
  static String outerClassName(FileDescriptorProto file) {
    if (file.getOptions().hasJavaOuterClassname()) {
      return file.getOptions().getJavaOuterClassname();
    }
    String baseName = file.getName();
    baseName = baseName.substring(baseName.lastIndexOf('/') + 1);
    if (baseName.endsWith(".proto")) {
      baseName = baseName.substring(0, baseName.length() - ".proto".length());
    }
    String name = JavaNames.camelCase(baseName, true);
    return declaresName(file, name) ? name + "OuterClass" : name;
  }

  /** The fully qualified name of {@code file}'s outer class. */
  static String outerClassQualifiedName(FileDescriptorProto file) {
    return qualify(javaPackage(file), outerClassName(file));
  }

  /** {@code pkg.name}, or just {@code name} in the default package. */
  static String qualify(String javaPackage, String name) {
    return javaPackage.isEmpty() ? name : javaPackage + "." + name;
  }

  private static boolean declaresName(FileDescriptorProto file, String name) {
    for (EnumDescriptorProto enumType : file.getEnumTypeList()) {
      if (enumType.getName().equals(name)) {
        return true;
      }
    }
    for (ServiceDescriptorProto service : file.getServiceList()) {
      if (service.getName().equals(name)) {
        return true;
      }
    }
    for (DescriptorProto message : file.getMessageTypeList()) {
      if (messageDeclaresName(message, name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean messageDeclaresName(DescriptorProto message, String name) {
    if (message.getName().equals(name)) {
      return true;
    }
    for (EnumDescriptorProto enumType : message.getEnumTypeList()) {
      if (enumType.getName().equals(name)) {
        return true;
      }
    }
    for (DescriptorProto nested : message.getNestedTypeList()) {
      if (messageDeclaresName(nested, name)) {
        return true;
      }
    }
    return false;
  }

  /** The simple names of the top-level Java classes {@code file} puts in its package. */
  static List<String> topLevelClassNames(FileDescriptorProto file) {
    List<String> names = new ArrayList<>();
    names.add(outerClassName(file));
    if (file.getOptions().getJavaMultipleFiles()) {
      for (DescriptorProto message : file.getMessageTypeList()) {
        names.add(message.getName());
      }
      for (EnumDescriptorProto enumType : file.getEnumTypeList()) {
        names.add(enumType.getName());
      }
    }
    return names;
  }
}
