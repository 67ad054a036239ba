package dev.tern.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Serves the files of one folder over HTTP/1.1 on a free loopback port: the web page of the browser
 * tests, from an origin ({@code http://127.0.0.1:PORT}) other than the gRPC server's. GET only; a
 * path outside the folder, or a file not there, is a 404.
 *
 * <p>Thread-safe: requests are answered on the JDK server's own thread; {@link #close} may be
 * called from any thread.
 */
public final class StaticFileServer implements AutoCloseable {
  private final Path root;
  private final HttpServer server;

  private StaticFileServer(Path root, HttpServer server) {
    this.root = root;
    this.server = server;
  }

  /** Starts serving {@code root} on 127.0.0.1 and a free port. */
  public static StaticFileServer start(Path root) throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    StaticFileServer files = new StaticFileServer(root.toAbsolutePath().normalize(), server);
    server.createContext("/", files::serve);
    server.start();
    return files;
  }

  /** The origin pages served from here have, as a browser's {@code Origin} header names it. */
  public String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      Path file = root.resolve(exchange.getRequestURI().getPath().substring(1)).normalize();
      if (!exchange.getRequestMethod().equals("GET")
          || !file.startsWith(root)
          || !Files.isRegularFile(file)) {
        byte[] body = "not found\n".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(404, body.length);
        exchange.getResponseBody().write(body);
        return;
      }
      byte[] body = Files.readAllBytes(file);
      exchange.getResponseHeaders().set("Content-Type", contentType(file));
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static String contentType(Path file) {
    String name = file.getFileName().toString();
    if (name.endsWith(".html")) {
      return "text/html; charset=utf-8";
    }
    if (name.endsWith(".js")) {
      return "text/javascript; charset=utf-8";
    }
    return "application/octet-stream";
  }

  /** Stops serving; requests in progress are cut off. */
  @Override
  public void close() {
    server.stop(0);
  }
}
