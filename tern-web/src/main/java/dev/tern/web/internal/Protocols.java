package dev.tern.web.internal;

import dev.tern.netty.http.HttpServerProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Builds the configured protocols for {@link dev.tern.web.WebProtocols}. Stateless. */
public final class Protocols {
  private Protocols() {}

  /** gRPC-Web then Connect, as enabled, sharing one CORS configuration for {@code origins}. */
  public static List<HttpServerProtocol> create(
      Set<String> origins, boolean grpcWeb, boolean connect) {
    Cors cors = origins.isEmpty() ? Cors.OFF : new Cors(origins);
    List<HttpServerProtocol> protocols = new ArrayList<>(2);
    if (grpcWeb) {
      protocols.add(new GrpcWebProtocol(cors));
    }
    if (connect) {
      protocols.add(new ConnectProtocol(cors));
    }
    return List.copyOf(protocols);
  }
}
