package dev.tern;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@link NonBlocking} from a service implementation's class: what {@link
 * ServerBuilder#addService(BindableService)} declares non-blocking. Stateless.
 */
final class NonBlockingAnnotations {
  private NonBlockingAnnotations() {}

  /**
   * The names {@code implementation}'s annotations declare non-blocking in {@code service}: the
   * service's name when the class is annotated, else the full name of each gRPC method an annotated
   * public method implements (matched by name as protoc-gen-tern derives it: {@code SayHello} or
   * {@code say_hello} is served by {@code sayHello}).
   *
   * @throws IllegalArgumentException if an annotated method implements no method of the service
   */
  static List<String> declared(Class<?> implementation, ServerServiceDefinition service) {
    String serviceName = service.getServiceDescriptor().getName();
    if (implementation.isAnnotationPresent(NonBlocking.class)) {
      return List.of(serviceName);
    }
    List<String> names = new ArrayList<>();
    for (Method javaMethod : implementation.getMethods()) {
      if (!javaMethod.isAnnotationPresent(NonBlocking.class)) {
        continue;
      }
      String javaName = comparable(javaMethod.getName());
      boolean found = false;
      for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
        MethodDescriptor<?, ?> descriptor = method.getMethodDescriptor();
        if (comparable(descriptor.getBareMethodName()).equals(javaName)) {
          found = true;
          if (!names.contains(descriptor.getFullMethodName())) {
            names.add(descriptor.getFullMethodName());
          }
        }
      }
      if (!found) {
        throw new IllegalArgumentException(
            "@NonBlocking on "
                + implementation.getName()
                + "."
                + javaMethod.getName()
                + ", which serves no method of "
                + serviceName);
      }
    }
    return names;
  }

  /**
   * The letters and digits of a name, lower-cased: protoc's camel-casing drops underscores and
   * changes case, and a name that is a Java keyword gets a suffix that is no letter or digit.
   */
  private static String comparable(String name) {
    StringBuilder result = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        result.append(c);
      }
    }
    return result.toString().toLowerCase(Locale.ROOT);
  }
}
