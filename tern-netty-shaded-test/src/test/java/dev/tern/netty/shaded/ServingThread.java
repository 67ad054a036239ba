package dev.tern.netty.shaded;

import java.util.regex.Pattern;

/**
 * Tells which Netty transport runs the current thread, from its stack: what a thread dump of a
 * handler running on the event loop (a server with {@code directExecutor()}) would show.
 */
final class ServingThread {
  /** A class of a Netty transport's own package: epoll, NIO, io_uring or kqueue, either Netty. */
  private static final Pattern TRANSPORT_CLASS =
      Pattern.compile(
          "(dev\\.tern\\.shaded\\.)?io\\.netty\\.channel\\.(epoll|nio|uring|kqueue)\\..+");

  private ServingThread() {}

  /** The first Netty transport class on the current thread's stack, or a message saying none. */
  static String transportClass() {
    for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
      if (TRANSPORT_CLASS.matcher(frame.getClassName()).matches()) {
        return frame.getClassName();
      }
    }
    return "no Netty transport on the stack of " + Thread.currentThread().getName();
  }
}
