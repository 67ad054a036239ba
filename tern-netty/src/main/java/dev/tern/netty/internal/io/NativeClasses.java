package dev.tern.netty.internal.io;

/** Helpers of {@link EpollSupport} and {@link IoUringSupport}. Stateless; thread-safe. */
final class NativeClasses {
  private NativeClasses() {}

  /** Whether {@code className} is on the class path, without initializing it. */
  static boolean present(String className) {
    try {
      Class.forName(className, false, NativeClasses.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** {@code cause} and its causes, one line, for an error message. */
  static String describe(Throwable cause) {
    if (cause == null) {
      return "unknown cause";
    }
    StringBuilder text = new StringBuilder(String.valueOf(cause));
    Throwable c = cause.getCause();
    for (int depth = 0; c != null && depth < 4; depth++, c = c.getCause()) {
      text.append("; caused by ").append(c);
    }
    return text.toString();
  }
}
