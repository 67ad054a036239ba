package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.benchmarks.proto.BenchmarkServiceGrpc;
import io.grpc.benchmarks.proto.Messages.Payload;
import io.grpc.benchmarks.proto.Messages.SimpleRequest;
import io.grpc.benchmarks.proto.Messages.SimpleResponse;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * A qps server written against grpc-java's {@code io.grpc} API only, for the bridge benchmark
 * (issue 38; {@code bin/bench-compare --bridge}): the same program runs on grpc-java's transport
 * or, with {@code tern-grpc-java} in its place on the class path, on Tern. grpc-java's own {@code
 * AsyncServer} cannot serve here: it names {@code NettyServerBuilder} and Netty's event loops
 * directly, so it never goes through the provider API that the bridge plugs into. This one builds
 * its server with {@link Grpc#newServerBuilderForPort} and serves grpc-java's generated {@code
 * BenchmarkService} (from {@code grpc-benchmarks}) as {@link QpsServer} serves Tern's: unary calls
 * and ping-pong streams, each answered with a cached payload of {@code response_size} zeros.
 *
 * <p>Its first line names the server class the provider gave, which shows which stack serves. It
 * also counts its heap bytes per call ({@link ServerHeapCount}). Flags: {@code --help}.
 */
public final class ProviderQpsServer {
  private static final String PROGRAM = "ProviderQpsServer";

  private ProviderQpsServer() {}

  /** The service, counting calls (ping-pong rounds on a stream). Thread-safe. */
  static final class BenchmarkService extends BenchmarkServiceGrpc.BenchmarkServiceImplBase {
    final ServerHeapCount heapCount = new ServerHeapCount();
    private final ConcurrentMap<Integer, SimpleResponse> responses = new ConcurrentHashMap<>();

    private SimpleResponse respond(SimpleRequest request) {
      heapCount.called();
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

  /** Entry point; see {@link #run}. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Serves until the JVM is stopped.
   *
   * @return 0 after {@code --help}; 1 after one line to {@code err} if it cannot listen; 2 after
   *     one line naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    PlainFlags flags =
        new PlainFlags(
                PROGRAM,
                "qps server on grpc-java's io.grpc API only (Grpc.newServerBuilderForPort):"
                    + " serves grpc.testing.BenchmarkService on whatever io.grpc.ServerProvider"
                    + " the class path brings")
            .flag("address", "localhost:8080", "HOST:PORT; the server listens on PORT (0: any)")
            .bool("directexecutor", "run the service on the transport's threads")
            .flag("warmup_duration", "10", "seconds after the first call before counting heap")
            .flag("duration", "60", "seconds over which heap bytes per call are counted");
    int port;
    int warmupSeconds;
    int durationSeconds;
    try {
      flags.parse(args, out, err);
      String address = flags.string("address");
      try {
        port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
      } catch (NumberFormatException e) {
        throw flags.usage(err, "--address must be HOST:PORT, got " + address);
      }
      warmupSeconds = flags.integer("warmup_duration", 0, err);
      durationSeconds = flags.integer("duration", 1, err);
    } catch (PlainFlags.Exit exit) {
      return exit.status;
    }

    BenchmarkService service = new BenchmarkService();
    ForkJoinPool appExecutor =
        flags.bool("directexecutor") ? null : AppExecutors.newForkJoinPool("grpc-server-app-");
    Server server = build(port, service, appExecutor);
    out.println(PROGRAM + ": server " + server.getClass().getName());
    try {
      server.start();
    } catch (IOException e) {
      err.println(PROGRAM + ": could not listen on port " + port + ": " + e.getMessage());
      return 1;
    }
    out.println("QPS server listening on port " + server.getPort());
    out.flush();
    service.heapCount.startCounting(warmupSeconds, durationSeconds, out);
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    server.awaitTermination();
    if (appExecutor != null) {
      appExecutor.shutdownNow();
    }
    return 0;
  }

  /**
   * The server, not started yet, for {@code service} on {@code port} through grpc-java's provider
   * API; its calls run on {@code appExecutor}, or on the transport's threads if it is null.
   */
  static Server build(int port, BenchmarkService service, Executor appExecutor) {
    ServerBuilder<?> builder =
        Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create()).addService(service);
    if (appExecutor == null) {
      builder.directExecutor();
    } else {
      builder.executor(appExecutor);
    }
    return builder.build();
  }
}
