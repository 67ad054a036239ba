package dev.tern.web;

import dev.tern.netty.http.HttpServerProtocol;
import dev.tern.web.internal.Protocols;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * gRPC-Web and the Connect protocol, for a Tern Netty server's port, so browsers and {@code curl}
 * call the same services (interceptors, deadlines and compression included) that gRPC clients do:
 *
 * <pre>{@code
 * NettyServerBuilder.forPort(8080)
 *     .addService(new GreeterImpl())
 *     .httpProtocols(WebProtocols.builder()
 *         .corsAllowedOrigins("https://app.example.com")
 *         .build());
 * }</pre>
 *
 * <p>Without {@code httpProtocols(...)}, a server with this module on its class path serves both
 * protocols with the defaults below (found through {@link java.util.ServiceLoader}).
 */
public final class WebProtocols {
  private WebProtocols() {}

  /** A builder with the defaults: gRPC-Web and Connect on, CORS off. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures the protocols. Not thread-safe; {@link #build()} may be called more than once. */
  public static final class Builder {
    private final Set<String> origins = new LinkedHashSet<>();
    private boolean grpcWeb = true;
    private boolean connect = true;

    private Builder() {}

    /**
     * Lets scripts from these origins call the server (CORS): preflight {@code OPTIONS} requests
     * are answered, and responses to them carry the CORS headers, exposing the gRPC and Connect
     * headers and the response's own metadata. Each origin is matched exactly ({@code
     * "https://app.example.com"}, scheme, host and port as the browser sends them in {@code
     * Origin}); {@code "*"} allows any origin. Calls from other origins still reach the server
     * (CORS is the browser's check), but their responses carry no CORS headers at all, so a browser
     * refuses them. May be called more than once; origins add up.
     *
     * <p>Default: none, and CORS is off (no preflight is answered).
     *
     * @throws IllegalArgumentException if an origin is empty
     */
    public Builder corsAllowedOrigins(String... origins) {
      Objects.requireNonNull(origins, "origins");
      for (String origin : origins) {
        Objects.requireNonNull(origin, "origin");
        if (origin.isBlank()) {
          throw new IllegalArgumentException("origin must not be empty");
        }
        this.origins.add(origin.trim());
      }
      return this;
    }

    /**
     * Whether gRPC-Web is served: {@code application/grpc-web} ({@code +proto}, {@code +json}) and
     * {@code application/grpc-web-text} (base64). Default: true.
     */
    public Builder grpcWeb(boolean enabled) {
      this.grpcWeb = enabled;
      return this;
    }

    /**
     * Whether the Connect protocol is served: unary {@code POST} ({@code application/proto}, {@code
     * application/json}), unary {@code GET} for side-effect-free methods, and streaming ({@code
     * application/connect+proto}, {@code +json}). Default: true.
     */
    public Builder connect(boolean enabled) {
      this.connect = enabled;
      return this;
    }

    /**
     * The protocols, for {@code NettyServerBuilder.httpProtocols}: gRPC-Web first, then Connect, as
     * enabled (empty if both are off).
     */
    public List<HttpServerProtocol> build() {
      return Protocols.create(Set.copyOf(origins), grpcWeb, connect);
    }
  }
}
