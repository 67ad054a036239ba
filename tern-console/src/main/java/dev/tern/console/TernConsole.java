package dev.tern.console;

import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.web.WebProtocols;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The console: a page in the browser, served under {@code /_tern/console/} on a Netty server's own
 * port (HTTP/1.1 and HTTP/2), that lists every service, method and message the server's reflection
 * describes, calls them over Connect JSON, and shows health, channelz and the server's own counts
 * of its calls. One call adds it:
 *
 * <pre>{@code
 * NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 8080))
 *     .addService(new GreeterImpl())
 *     .addService(ProtoReflectionService.v1());
 * TernConsole.builder().build().addTo(builder);
 * }</pre>
 *
 * <p>The page learns everything from the server's public services: reflection ({@code
 * grpc.reflection.v1}, needed), health and channelz (shown when the server has them). A server
 * bound beyond loopback needs an {@link ConsoleAuthenticator} (or {@link
 * Builder#allowUnauthenticatedRemote}). Immutable and thread-safe.
 */
public final class TernConsole {
  private static final Logger logger = Logger.getLogger(TernConsole.class.getName());

  /** The path under which the console is served. */
  public static final String PATH = "/_tern/console/";

  private final ConsoleAuthenticator authenticator;
  private final boolean allowUnauthenticatedRemote;
  private final List<HttpServerProtocol> webProtocols;
  private final Map<String, List<String>> examples;

  private TernConsole(Builder builder) {
    this.authenticator = builder.authenticator;
    this.allowUnauthenticatedRemote = builder.allowUnauthenticatedRemote;
    this.webProtocols = builder.webProtocols;
    Map<String, List<String>> copy = new LinkedHashMap<>();
    builder.examples.forEach((method, list) -> copy.put(method, List.copyOf(list)));
    this.examples = Map.copyOf(copy);
  }

  /** A builder: no authenticator, the web protocols' defaults, no example requests. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Serves the console on {@code server}'s port: sets its {@code httpProtocols} to the console's
   * followed by the web protocols (see {@link Builder#webProtocols}). Call it after any other
   * {@code httpProtocols(...)}, which would otherwise replace the console. Also adds a stream
   * tracer that counts the server's calls per method, and its refusals, for the State view (a few
   * counter increments per call). Returns {@code server}.
   *
   * @throws IllegalStateException if {@code server} binds an address beyond loopback (a wildcard
   *     address included) and there is neither an authenticator nor {@link
   *     Builder#allowUnauthenticatedRemote}
   */
  public NettyServerBuilder addTo(NettyServerBuilder server) {
    Objects.requireNonNull(server, "server");
    SocketAddress address = server.listenAddress();
    boolean loopback =
        !(address instanceof InetSocketAddress)
            || (((InetSocketAddress) address).getAddress() != null
                && ((InetSocketAddress) address).getAddress().isLoopbackAddress());
    if (!loopback && authenticator == null) {
      if (!allowUnauthenticatedRemote) {
        throw new IllegalStateException(
            "The Tern console would be served on "
                + address
                + ", beyond loopback, to anyone who can reach it: set an authenticator"
                + " (TernConsole.builder().authenticator(...)), bind the server to 127.0.0.1,"
                + " or opt in with allowUnauthenticatedRemote()");
      }
      logger.log(
          Level.WARNING,
          "The Tern console is served on {0} WITHOUT authentication (allowUnauthenticatedRemote):"
              + " anyone who reaches this port can list and call every service",
          address);
    }
    ServerMetrics metrics = new ServerMetrics();
    server.addStreamTracerFactory(metrics);
    List<HttpServerProtocol> protocols = new ArrayList<>();
    protocols.add(new ConsoleProtocol(authenticator, examples, metrics));
    protocols.addAll(webProtocols);
    return server.httpProtocols(protocols);
  }

  /** Configures the console. Not thread-safe; {@link #build()} may be called more than once. */
  public static final class Builder {
    private ConsoleAuthenticator authenticator;
    private boolean allowUnauthenticatedRemote;
    private List<HttpServerProtocol> webProtocols = WebProtocols.builder().build();
    private final Map<String, List<String>> examples = new LinkedHashMap<>();

    private Builder() {}

    /** Asked for every request under {@code /_tern/console/}; refused ones get 401. */
    public Builder authenticator(ConsoleAuthenticator authenticator) {
      this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
      return this;
    }

    /**
     * Serves the console beyond loopback without an authenticator, logging a WARNING when added.
     * For a network you trust entirely; prefer an authenticator or a loopback admin server.
     */
    public Builder allowUnauthenticatedRemote() {
      this.allowUnauthenticatedRemote = true;
      return this;
    }

    /**
     * The web protocols served after the console's (the page calls over Connect). Default: {@code
     * WebProtocols.builder().build()}; pass your own for CORS settings.
     *
     * @throws IllegalArgumentException if they include no protocol
     */
    public Builder webProtocols(List<HttpServerProtocol> protocols) {
      Objects.requireNonNull(protocols, "protocols");
      if (protocols.isEmpty()) {
        throw new IllegalArgumentException(
            "protocols must not be empty: the page calls over Connect");
      }
      this.webProtocols = List.copyOf(protocols);
      return this;
    }

    /**
     * An example request for {@code fullMethodName} ({@code "package.Service/Method"}), as proto3
     * JSON, offered in the call form. May be called more than once per method.
     *
     * @throws IllegalArgumentException if the method name has no '/' or the JSON is not an object
     */
    public Builder exampleRequest(String fullMethodName, String json) {
      Objects.requireNonNull(fullMethodName, "fullMethodName");
      Objects.requireNonNull(json, "json");
      int slash = fullMethodName.indexOf('/');
      if (slash <= 0 || slash == fullMethodName.length() - 1) {
        throw new IllegalArgumentException(
            "fullMethodName must be 'package.Service/Method', was '" + fullMethodName + "'");
      }
      String trimmed = json.trim();
      if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) {
        throw new IllegalArgumentException("json must be a JSON object, was '" + json + "'");
      }
      examples.computeIfAbsent(fullMethodName, m -> new ArrayList<>()).add(trimmed);
      return this;
    }

    /** The console. */
    public TernConsole build() {
      return new TernConsole(this);
    }
  }
}
