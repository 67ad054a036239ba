package dev.tern.compiler;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every name the generated {@code <Service>Tern} class uses, chosen once so the writers only print.
 *
 * <p>Method names are grpc-java's (lower camel case of the proto name), mangled deterministically:
 * a keyword or {@link Object} method name gets a trailing {@code _}, a name already taken by an
 * earlier method gets {@code _1}, {@code _2}... Parameters and private fields are renamed (trailing
 * {@code _}) if they equal the first segment of a qualified name the class uses, which they would
 * otherwise obscure. Types the class declares or inherits cannot be renamed (they are API), so such
 * a clash is an error.
 *
 * <p>Immutable after construction.
 */
final class ServiceModel {

  /** A proto method with the Java names chosen for it. */
  record Method(
      MethodDescriptorProto proto,
      String javaName,
      String getterName,
      String fieldName,
      String requestType,
      String responseType,
      String comment) {

    String protoName() {
      return proto.getName();
    }

    boolean clientStreaming() {
      return proto.getClientStreaming();
    }

    boolean serverStreaming() {
      return proto.getServerStreaming();
    }

    boolean deprecated() {
      return proto.getOptions().getDeprecated();
    }

    /** The {@code MethodDescriptor.MethodType} constant. */
    String methodType() {
      if (clientStreaming()) {
        return serverStreaming() ? "BIDI_STREAMING" : "CLIENT_STREAMING";
      }
      return serverStreaming() ? "SERVER_STREAMING" : "UNARY";
    }
  }

  final FileDescriptorProto file;
  final ServiceDescriptorProto service;
  final String serviceComment;
  final String javaPackage;
  final String className;
  final String outerClass;
  final String fullServiceName;
  final List<Method> methods;
  final boolean usesDeprecatedTypes;

  /** False for lite messages, which carry no descriptors: there is no schema to attach. */
  final boolean hasSchema;

  final String request;
  final String requests;
  final String responses;
  final String executor;
  final String responseObserver;
  final String channel;
  final String callOptions;
  final String serviceParameter;
  final String serviceDescriptorField;

  /** First segments of the qualified names used in the output: no local name may equal one. */
  private final Set<String> packageRoots = new HashSet<>();

  ServiceModel(
      FileDescriptorProto file,
      int serviceIndex,
      JavaTypeResolver types,
      SourceComments comments,
      boolean lite) {
    this.file = file;
    this.service = file.getService(serviceIndex);
    this.serviceComment = comments.service(serviceIndex);
    this.javaPackage = JavaTypeResolver.javaPackage(file);
    this.className = className(service);
    this.outerClass = JavaTypeResolver.outerClassQualifiedName(file);
    this.hasSchema = !lite;
    this.fullServiceName =
        file.getPackage().isEmpty()
            ? service.getName()
            : file.getPackage() + "." + service.getName();
    String where = file.getName() + ": " + fullServiceName;

    List<JavaTypeResolver.MessageClass> requests = new ArrayList<>();
    List<JavaTypeResolver.MessageClass> responses = new ArrayList<>();
    boolean deprecatedTypes = file.getOptions().getDeprecated();
    packageRoots.add(root(outerClass));
    for (MethodDescriptorProto method : service.getMethodList()) {
      String usedBy = where + "/" + method.getName();
      JavaTypeResolver.MessageClass request = types.messageClass(method.getInputType(), usedBy);
      JavaTypeResolver.MessageClass response = types.messageClass(method.getOutputType(), usedBy);
      deprecatedTypes |= request.deprecated() || response.deprecated();
      packageRoots.add(root(request.qualifiedName()));
      packageRoots.add(root(response.qualifiedName()));
      requests.add(request);
      responses.add(response);
    }
    this.usesDeprecatedTypes = deprecatedTypes;
    checkNoShadowing(where);

    this.request = local("request");
    this.requests = local("requests");
    this.responses = local("responses");
    this.executor = local("executor");
    this.responseObserver = local("responseObserver");
    this.channel = local("channel");
    this.callOptions = local("callOptions");
    this.serviceParameter = local("service");
    this.serviceDescriptorField = local("SERVICE_DESCRIPTOR");

    List<Method> named = new ArrayList<>();
    Set<String> usedNames = new HashSet<>();
    Set<String> usedFields = new HashSet<>();
    usedFields.add(serviceDescriptorField);
    for (int i = 0; i < service.getMethodCount(); i++) {
      MethodDescriptorProto method = service.getMethod(i);
      String base = JavaNames.camelCase(method.getName(), false);
      if (base.isEmpty()) {
        base = "method" + i; // a name made only of underscores
      }
      String unique = base;
      for (int n = 1; !usedNames.add(unique); n++) {
        unique = base + "_" + n;
      }
      String fieldBase = JavaNames.upperSnakeCase(unique);
      String field = local(fieldBase + "_METHOD");
      for (int n = 1; !usedFields.add(field); n++) {
        field = local(fieldBase + "_" + n + "_METHOD");
      }
      named.add(
          new Method(
              method,
              JavaNames.needsMangling(unique) ? unique + "_" : unique,
              "get" + JavaNames.capitalize(unique) + "Method",
              field,
              requests.get(i).qualifiedName(),
              responses.get(i).qualifiedName(),
              comments.method(serviceIndex, i)));
    }
    this.methods = List.copyOf(named);
  }

  /** The simple name of the class generated for {@code service}. */
  static String className(ServiceDescriptorProto service) {
    return service.getName() + "Tern";
  }

  /** The simple name of a nested class, e.g. {@code GreeterBlockingStub} for "BlockingStub". */
  String nested(String suffix) {
    return service.getName() + suffix;
  }

  /** The path of the generated file, e.g. {@code com/example/GreeterTern.java}. */
  String fileName() {
    String dir = javaPackage.isEmpty() ? "" : javaPackage.replace('.', '/') + "/";
    return dir + className + ".java";
  }

  /** A call of the class's own static {@code method} that no member of a nested class can hide. */
  String staticCall(String method) {
    return className + "." + method + "()";
  }

  private static String root(String qualifiedName) {
    int dot = qualifiedName.indexOf('.');
    return dot < 0 ? qualifiedName : qualifiedName.substring(0, dot);
  }

  private String local(String name) {
    String result = name;
    while (packageRoots.contains(result)) {
      result += "_";
    }
    return result;
  }

  /** Types the generated class declares or inherits would hide a same-named package or class. */
  private void checkNoShadowing(String where) {
    List<String> declared =
        List.of(
            className,
            "AsyncService",
            "BlockingService",
            nested("ImplBase"),
            nested("Stub"),
            nested("BlockingStub"),
            nested("BlockingV2Stub"),
            nested("FutureStub"),
            "StubFactory");
    for (String type : declared) {
      if (packageRoots.contains(type)) {
        throw new GenerationException(
            where
                + ": the generated class "
                + className
                + " declares or inherits a type named "
                + type
                + ", which would hide the message class or package of the same name; rename the"
                + " message or set java_package");
      }
    }
  }
}
