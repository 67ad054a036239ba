package dev.tern.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The console's static files, read once from the jar ({@code dev/tern/console/assets/}): the page
 * {@code index.html} (with the server's token put in) and the versioned assets under {@code v1/}.
 * Only the names listed here are served; a name with anything but letters, digits, '-' and one '.'
 * before its extension is refused. Thread-safe: immutable.
 */
final class Assets {
  /** What the console's page loads; nothing else is served. */
  private static final String[] NAMES = {
    "index.html",
    "v1/console.css",
    "v1/app.js",
    "v1/pb.js",
    "v1/pbjson.js",
    "v1/rpc.js",
    "v1/services.js",
    "v1/call.js",
    "v1/state.js",
  };

  private static final Pattern NAME = Pattern.compile("(v1/)?[a-z0-9-]+\\.[a-z]+");

  record Asset(String contentType, byte[] bytes) {}

  private final Map<String, Asset> assets;

  private Assets(Map<String, Asset> assets) {
    this.assets = Map.copyOf(assets);
  }

  static Assets load(String token) {
    Map<String, Asset> assets = new HashMap<>();
    for (String name : NAMES) {
      byte[] bytes = read(name);
      if (name.equals("index.html")) {
        bytes =
            new String(bytes, StandardCharsets.UTF_8)
                .replace("@TOKEN@", token)
                .getBytes(StandardCharsets.UTF_8);
      }
      assets.put(name, new Asset(contentType(name), bytes));
    }
    return new Assets(assets);
  }

  /**
   * The asset called {@code name}, or null if there is none.
   *
   * @throws IllegalArgumentException if {@code name} is not a plain asset name (a path that tries
   *     to leave the console's folder, an encoded character)
   */
  Asset find(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Not a console asset name: '" + name + "'");
    }
    return assets.get(name);
  }

  private static byte[] read(String name) {
    String resource = "/dev/tern/console/assets/" + name;
    try (InputStream in = Assets.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("tern-console's jar lacks " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String contentType(String name) {
    if (name.endsWith(".html")) {
      return "text/html; charset=utf-8";
    }
    if (name.endsWith(".css")) {
      return "text/css; charset=utf-8";
    }
    return "text/javascript; charset=utf-8";
  }
}
