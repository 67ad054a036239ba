package dev.tern.netty.internal.io;

/**
 * Netty system properties whose defaults Tern changes, applied before Netty's first class loads
 * (from the static initializers of tern-netty's public entry points), and only where the
 * application has not set them:
 *
 * <ul>
 *   <li>{@code io.netty.jfr.enabled=false}: Netty 4.2 defines JFR events for its buffer allocators
 *       and, when JFR is available, registers them at start-up. That costs the first call of a
 *       fresh JVM 0.2 to 1 s of class loading and event set-up (measured with grpc-java's examples;
 *       docs/netty-transport.md), for events that are off in JFR's default settings and that
 *       grpc-java's Netty 4.1 never had. {@code -Dio.netty.jfr.enabled=true} brings them back.
 * </ul>
 *
 * <p>Thread-safe: {@link #applyDefaults} is idempotent, and setting a system property is atomic.
 */
public final class NettyProperties {
  static final String JFR_ENABLED = "io.netty.jfr.enabled";

  private NettyProperties() {}

  /** Sets Tern's defaults for the properties the application left unset. */
  public static void applyDefaults() {
    try {
      if (System.getProperty(JFR_ENABLED) == null) {
        System.setProperty(JFR_ENABLED, "false");
      }
    } catch (SecurityException e) {
      // A security manager that forbids it keeps Netty's default; nothing else changes.
    }
  }
}
