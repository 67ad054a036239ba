package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.Server;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The qps benchmark server: {@code grpc.testing.BenchmarkService} answering each request with
 * {@code response_size} zero bytes. Flags as grpc-java's {@code AsyncServer}: {@code
 * --address=HOST:PORT --directexecutor --transport=nio|epoll|io_uring}; {@code --help} describes
 * them. The server listens on HOST only (so several can share a machine on 127.0.0.2, 127.0.0.3,
 * ... for load-balancing runs); port 0 lets the system choose one, printed once listening.
 */
public final class QpsServer {
  /** What {@code --help} prints. */
  static final String USAGE =
      String.join(
          "\n",
          "Usage: bin/qps-server [FLAGS]   (flags as grpc-java's AsyncServer)",
          "  --address=HOST:PORT      listen on HOST (an address of this machine, e.g. 127.0.0.2)",
          "                           and PORT; port 0: a free port, printed as",
          "                           'QPS server listening on port N' (default localhost:8080)",
          "  --directexecutor         run the service on the event loops",
          "  " + Transport.FLAG_HELP,
          "  --help                   print this and exit",
          "");

  private QpsServer() {}

  /** The service. Stateless apart from a cache of zero payloads; thread-safe. */
  static final class BenchmarkService extends BenchmarkServiceTern.BenchmarkServiceImplBase {
    private final ConcurrentMap<Integer, SimpleResponse> responses = new ConcurrentHashMap<>();

    /** The answer to {@code request}: a payload of {@code response_size} zeros, built once. */
    SimpleResponse respond(SimpleRequest request) {
      return responses.computeIfAbsent(
          request.getResponseSize(),
          size ->
              SimpleResponse.newBuilder()
                  .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])))
                  .build());
    }

    @Override
    public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
      responseObserver.onNext(respond(request));
      responseObserver.onCompleted();
    }

    @Override
    public StreamObserver<SimpleRequest> streamingCall(
        StreamObserver<SimpleResponse> responseObserver) {
      return new StreamObserver<>() {
        @Override
        public void onNext(SimpleRequest request) {
          responseObserver.onNext(respond(request));
        }

        @Override
        public void onError(Throwable t) {
          // The client went away: nothing to answer.
        }

        @Override
        public void onCompleted() {
          responseObserver.onCompleted();
        }
      };
    }
  }

  /** Builds and starts the server described by the flags. */
  static Server start(String address, boolean directExecutor, Transport transport)
      throws IOException {
    InetSocketAddress bind = Transport.parseAddress(address);
    NettyServerBuilder builder =
        transport.configure(NettyServerBuilder.forAddress(bind)).addService(new BenchmarkService());
    if (directExecutor) {
      builder.directExecutor();
    }
    return builder.build().start();
  }

  /** Entry point; see the class doc for flags. */
  public static void main(String[] args) throws Exception {
    if (List.of(args).contains("--help")) {
      System.out.print(USAGE);
      return;
    }
    Flags flags;
    try {
      flags = Flags.parse(args, Set.of("address", "directexecutor", "transport", "help"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Transport transport = Transport.named(flags.string("transport", "nio"));
    Server server =
        start(flags.string("address", "localhost:8080"), flags.bool("directexecutor"), transport);
    System.out.println("QPS server listening on port " + server.getPort());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    server.awaitTermination();
    transport.close();
  }
}
