package dev.tern.benchmarks.vertx;

import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The qps BenchmarkService on Vert.x gRPC, written as its documentation shows: a {@link GrpcServer}
 * with one {@code callHandler} per method, mounted as the request handler of a Vert.x {@link
 * HttpServer} (plaintext HTTP/2, prior knowledge). UnaryCall answers each request with a payload of
 * {@code response_size} zero bytes, StreamingCall answers each message of the stream so
 * (ping-pong), as grpc-java's and Tern's qps servers do.
 *
 * <p>One event loop ({@code --event_loops=N} sets more): bench-compare pins the server to one CPU,
 * and Vert.x runs every handler on the event loop that owns the connection, so a second loop would
 * only compete for that CPU. Vert.x's defaults otherwise (NIO transport, as the JVM rows use;
 * HTTP/2 settings, no metrics). Runs until killed; prints one line once it listens.
 *
 * <p>Handlers run on the event loop; the response cache is concurrent for more than one loop.
 */
public final class VertxBenchServer {
  private static final Set<String> FLAGS = Set.of("address", "event_loops");

  private final ConcurrentMap<Integer, SimpleResponse> responses = new ConcurrentHashMap<>();

  private VertxBenchServer() {}

  public static void main(String[] args) {
    Flags flags;
    Flags.HostPort address;
    int eventLoops;
    try {
      flags = new Flags("vertx-bench server", FLAGS, args);
      address = flags.address("127.0.0.1:0");
      eventLoops = flags.integer("event_loops", 1);
      if (eventLoops == 0) {
        throw new IllegalArgumentException("vertx-bench server: --event_loops must be at least 1");
      }
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
    VertxBenchServer service = new VertxBenchServer();
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(BenchmarkMethods.UNARY_SERVER, service::unaryCall);
    grpc.callHandler(BenchmarkMethods.STREAMING_SERVER, service::streamingCall);
    vertx
        .createHttpServer(new HttpServerOptions().setHost(address.host()).setPort(address.port()))
        .requestHandler(grpc)
        .listen()
        .onSuccess(
            server ->
                System.out.printf(
                    "Vert.x gRPC benchmark server listening on %s:%d%n",
                    address.host(), server.actualPort()))
        .onFailure(
            e -> {
              System.err.printf(
                  "vertx-bench server: cannot listen on %s:%d: %s%n",
                  address.host(), address.port(), e);
              System.exit(1);
            });
  }

  private void unaryCall(GrpcServerRequest<SimpleRequest, SimpleResponse> call) {
    call.handler(request -> answer(call.response(), request, true));
  }

  private void streamingCall(GrpcServerRequest<SimpleRequest, SimpleResponse> call) {
    call.handler(request -> answer(call.response(), request, false));
    call.endHandler(end -> call.response().end());
  }

  private void answer(
      GrpcServerResponse<SimpleRequest, SimpleResponse> response,
      SimpleRequest request,
      boolean last) {
    int size = request.getResponseSize();
    if (size < 0) {
      response
          .status(GrpcStatus.INVALID_ARGUMENT)
          .statusMessage("response_size must not be negative, was " + size)
          .end();
      return;
    }
    SimpleResponse answer = responses.computeIfAbsent(size, BenchmarkMethods::response);
    if (last) {
      response.end(answer);
    } else {
      response.write(answer);
    }
  }
}
