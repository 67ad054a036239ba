package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.stub.StreamObserver;
import dev.tern.testtools.cli.CommandLine;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The qps benchmark server: {@code grpc.testing.BenchmarkService} answering each request with
 * {@code response_size} zero bytes. Flags as grpc-java's {@code AsyncServer} ({@link #FLAGS};
 * {@code --help} prints them). The server listens on HOST only (so several can share a machine on
 * 127.0.0.2, 127.0.0.3, ... for load-balancing runs); port 0 lets the system choose one, printed
 * once listening. With {@code --warmup_duration} and {@code --duration} it also prints its heap
 * bytes per call ({@link ServerHeapCount}).
 */
public final class QpsServer {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "qps-server",
              "Tern's qps benchmark server (grpc-java AsyncServer's flags): answers"
                  + " grpc.testing.BenchmarkService until stopped")
          .flag(
              "address",
              "HOST:PORT",
              "localhost:8080",
              "listen on HOST (an address of this machine, e.g. 127.0.0.2) and PORT;\n"
                  + "port 0: a free port, printed as 'QPS server listening on port N'")
          .bool("directexecutor", "run the service on the event loops")
          .bool(
              "defaults",
              "the server as a user writes it: its default executor (no executor of its own)\n"
                  + "and two ordinary interceptors (a response header, call counters)")
          .bool(
              "nonblocking",
              "declare the service non-blocking (ServerBuilder.nonBlocking): its calls run on\n"
                  + "the event loops, the server keeps its executor for any other service")
          .flag("transport", Transport.FLAG_VALUES, "nio", Transport.FLAG_HELP)
          .flag(
              "warmup_duration",
              "S",
              null,
              "with --duration: print the heap bytes per call of the window that opens S\n"
                  + "seconds after the first call (as ProviderQpsServer does)")
          .flag("duration", "S", null, "with --warmup_duration: that window's length")
          .flag(
              "tls_cert",
              "FILE",
              null,
              "with --tls_key: serve TLS (ALPN h2) with this PEM certificate chain; the TLS\n"
                  + "implementation is the transport's choice, or -Ddev.tern.netty.sslProvider")
          .flag("tls_key", "FILE", null, "with --tls_cert: the PEM private key (PKCS#8)")
          .example("bin/qps-server --address=127.0.0.1:0");

  private QpsServer() {}

  /** The service. Stateless apart from a cache of zero payloads; thread-safe. */
  static final class BenchmarkService extends BenchmarkServiceTern.BenchmarkServiceImplBase {
    private final ConcurrentMap<Integer, SimpleResponse> responses = new ConcurrentHashMap<>();
    private final ServerHeapCount heapCount;

    /** With {@code heapCount} null, calls are not counted. */
    BenchmarkService(ServerHeapCount heapCount) {
      this.heapCount = heapCount;
    }

    /** The answer to {@code request}: a payload of {@code response_size} zeros, built once. */
    SimpleResponse respond(SimpleRequest request) {
      if (heapCount != null) {
        heapCount.called();
      }
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
    return start(address, directExecutor, false, false, transport, null, null);
  }

  /** The certificate chain and private key of a server speaking TLS (PEM files). */
  record TlsFiles(File certChain, File privateKey) {}

  /**
   * As {@link #start(String, boolean, Transport)}, with the service declared non-blocking if {@code
   * nonBlocking}, with the server's default executor and {@link OrdinaryInterceptors} if {@code
   * defaults}, counting calls into {@code heapCount} unless it is null, speaking TLS with {@code
   * tls} unless it is null.
   */
  static Server start(
      String address,
      boolean directExecutor,
      boolean nonBlocking,
      boolean defaults,
      Transport transport,
      ServerHeapCount heapCount,
      TlsFiles tls)
      throws IOException {
    InetSocketAddress bind = Transport.parseAddress(address);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(bind);
    if (defaults) {
      transport
          .configureEventLoops(builder)
          .addService(
              ServerInterceptors.intercept(
                  new BenchmarkService(heapCount).bindService(), OrdinaryInterceptors.both()));
    } else {
      transport.configure(builder).addService(new BenchmarkService(heapCount));
    }
    if (directExecutor) {
      builder.directExecutor();
    }
    if (nonBlocking) {
      builder.nonBlocking(BenchmarkServiceTern.SERVICE_NAME);
    }
    if (tls != null) {
      builder.useTransportSecurity(tls.certChain(), tls.privateKey());
    }
    return builder.build().start();
  }

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Starts the server the flags describe and serves until the JVM is stopped.
   *
   * @return 0 after {@code --help} (printed to {@code out}); 1 after a one-line message to {@code
   *     err} if it cannot listen; 2 after a one-line message naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    Server server;
    Transport transport;
    ServerHeapCount heapCount = null;
    int warmupSeconds = 0;
    int durationSeconds = 0;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      String address = flags.string("address");
      if (flags.has("warmup_duration") != flags.has("duration")) {
        throw FLAGS.usageError("--warmup_duration and --duration go together");
      }
      if (flags.has("tls_cert") != flags.has("tls_key")) {
        throw FLAGS.usageError("--tls_cert and --tls_key go together");
      }
      TlsFiles tls =
          flags.has("tls_cert")
              ? new TlsFiles(new File(flags.string("tls_cert")), new File(flags.string("tls_key")))
              : null;
      if (flags.bool("defaults") && (flags.bool("directexecutor") || flags.bool("nonblocking"))) {
        throw FLAGS.usageError("--defaults goes with neither --directexecutor nor --nonblocking");
      }
      if (flags.has("duration")) {
        warmupSeconds = flags.integer("warmup_duration", 0);
        durationSeconds = flags.integer("duration", 1);
        heapCount = new ServerHeapCount();
      }
      try {
        Transport.parseAddress(address);
        transport = Transport.named(flags.string("transport"));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      try {
        server =
            start(
                address,
                flags.bool("directexecutor"),
                flags.bool("nonblocking"),
                flags.bool("defaults"),
                transport,
                heapCount,
                tls);
      } catch (IOException e) {
        transport.close();
        err.println(FLAGS.program() + ": could not listen on " + address + ": " + e.getMessage());
        return 1;
      }
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    out.println("QPS server listening on port " + server.getPort());
    out.flush();
    if (heapCount != null) {
      heapCount.startCounting(warmupSeconds, durationSeconds, out);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    server.awaitTermination();
    transport.close();
    return 0;
  }
}
