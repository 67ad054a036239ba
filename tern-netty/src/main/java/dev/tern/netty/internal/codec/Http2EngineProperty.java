package dev.tern.netty.internal.codec;

/**
 * The system property {@value #NAME}: which HTTP/2 implementation servers and channels run on when
 * their builder is not told ({@code useTernHttp2Engine}), read when the builder is made.
 *
 * <ul>
 *   <li>{@code tern}: servers and clients on Tern's own HTTP/2 engine;
 *   <li>{@code client}: clients on the engine, servers on Netty's HTTP/2 codec;
 *   <li>{@code netty}: servers and clients on Netty's HTTP/2 codec;
 *   <li>unset: the default, Tern's engine for both (Netty's codec stays behind this switch for one
 *       release, for a user who must fall back).
 * </ul>
 *
 * Any other value is a mistake, refused with an {@link IllegalArgumentException} that names the
 * property, rather than silently read as the default.
 *
 * <p>Thread-safe: stateless.
 */
public final class Http2EngineProperty {
  public static final String NAME = "tern.http2.engine";

  /** Where servers and clients run when the property is unset. */
  private static final boolean ENGINE_BY_DEFAULT = true;

  private Http2EngineProperty() {}

  /** Whether a server built without {@code useTernHttp2Engine} runs on Tern's engine. */
  public static boolean serverOnEngine() {
    String value = System.getProperty(NAME);
    if (value == null) {
      return ENGINE_BY_DEFAULT;
    }
    return switch (value) {
      case "tern" -> true;
      case "client", "netty" -> false;
      default -> throw unknown(value);
    };
  }

  /** Whether a channel built without {@code useTernHttp2Engine} runs on Tern's engine. */
  public static boolean clientOnEngine() {
    String value = System.getProperty(NAME);
    if (value == null) {
      return ENGINE_BY_DEFAULT;
    }
    return switch (value) {
      case "tern", "client" -> true;
      case "netty" -> false;
      default -> throw unknown(value);
    };
  }

  private static IllegalArgumentException unknown(String value) {
    return new IllegalArgumentException(
        "system property "
            + NAME
            + "="
            + value
            + " is not known: use tern (servers and clients on Tern's HTTP/2 engine), client"
            + " (clients only) or netty (both on Netty's HTTP/2 codec)");
  }
}
