package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.TlsChannelCredentials;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testtools.TestPems;
import dev.tern.testtools.cli.CommandLine;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The program behind {@code bin/h3-loss}: HTTP/3 against HTTP/2 over TLS, Tern at both ends, in
 * three roles ({@code --role}).
 *
 * <ul>
 *   <li>{@code server}: a qps server ({@code BenchmarkService}) with TLS 1.3 from a certificate it
 *       makes for {@code localhost} and writes to {@code --cert_out}, listening for HTTP/2 on TCP
 *       and HTTP/3 on UDP at the same port; prints {@code listening on port N}, serves until
 *       killed.
 *   <li>{@code streams}: one channel (one connection, HTTP/3 with {@code --http3}, else HTTP/2 over
 *       TLS), {@code --calls} concurrent bidirectional calls, each a ping-pong of {@code --payload}
 *       byte messages (a request, its answer, the next request); after a warm-up, the latency of
 *       every ping-pong over {@code --duration} seconds. One connection carries all calls, so on
 *       HTTP/2 one lost TCP segment holds up every call behind it (head-of-line blocking), where a
 *       lost QUIC packet holds up only the streams whose data it carried.
 *   <li>{@code first_call}: {@code --samples} times, a new channel and its first unary call, timed
 *       from building the channel to the call's end (name-free address, so: the handshake, TLS 1.3
 *       over TCP or QUIC's 1-RTT handshake, and one call), after {@code --warmup_samples}
 *       unmeasured ones.
 * </ul>
 *
 * <p>The client roles print one line, {@code count=N p50_us=.. p90_us=.. p95_us=.. p99_us=..
 * max_us=.. failed=N}, and exit 1 if any call failed. The lower percentiles are there because a
 * ping-pong that loses one of its own packets waits for its recovery on either protocol, so under a
 * few percent of loss the p99 is that recovery; a wait behind another stream's loss (head-of-line
 * blocking) shows below it. Thread-safety: the main thread drives everything; ping-pongs run on the
 * channel's threads ({@link QpsClient#pingPongs}) and record into {@link ClosedLoops}, which is
 * thread-safe.
 */
public final class LossProbe {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "h3-loss-probe",
              "HTTP/3 against HTTP/2 over TLS: a server, concurrent ping-pong streams, or new"
                  + " connections' first calls")
          .flag("role", "server|streams|first_call", "streams", "what to run")
          .flag(
              "address",
              "HOST:PORT",
              "127.0.0.1:0",
              "server: where to listen (port 0: a free one, printed); clients: the server")
          .flag("cert_out", "FILE", null, "server: where to write its certificate (PEM)")
          .flag("ca", "FILE", null, "clients: the server's certificate, to trust (PEM)")
          .bool("http3", "clients: call over HTTP/3 (else HTTP/2 over TLS)")
          .flag("calls", "N", "16", "streams: concurrent ping-pong calls on the one connection")
          .flag("payload", "BYTES", "100", "streams: request and response payload")
          .flag("warmup", "S", "3", "streams: seconds of ping-pongs before measuring")
          .flag("duration", "S", "20", "streams: measured seconds")
          .flag("samples", "N", "200", "first_call: measured new connections")
          .flag("warmup_samples", "N", "20", "first_call: unmeasured new connections first")
          .example("h3-loss-probe --role=streams --address=127.0.0.1:8443 --ca=cert.pem --http3");

  /** The server's certificate names {@code localhost}; clients check that name. */
  static final String AUTHORITY_HOST = "localhost";

  private LossProbe() {}

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the role the flags name.
   *
   * @return 0 when done; 1 if a call failed or the server cannot listen; 2 after a one-line message
   *     naming the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      InetSocketAddress address;
      try {
        address = Transport.parseAddress(flags.string("address"));
      } catch (IllegalArgumentException e) {
        throw FLAGS.usageError(e.getMessage());
      }
      switch (flags.string("role")) {
        case "server":
          if (!flags.has("cert_out")) {
            throw FLAGS.usageError("--role=server needs --cert_out");
          }
          return serve(address, Path.of(flags.string("cert_out")), out, err);
        case "streams":
        case "first_call":
          if (!flags.has("ca")) {
            throw FLAGS.usageError("--role=" + flags.string("role") + " needs --ca");
          }
          Client client = new Client(address, new File(flags.string("ca")), flags.bool("http3"));
          return flags.string("role").equals("streams")
              ? client.streams(
                  flags.integer("calls", 1),
                  flags.integer("payload", 0),
                  flags.integer("warmup", 0),
                  flags.integer("duration", 1),
                  out,
                  err)
              : client.firstCalls(
                  flags.integer("warmup_samples", 0), flags.integer("samples", 1), out, err);
        default:
          throw FLAGS.usageError(
              "--role must be server, streams or first_call, not " + flags.string("role"));
      }
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
  }

  private static int serve(
      InetSocketAddress address, Path certOut, PrintStream out, PrintStream err) throws Exception {
    Server server;
    try {
      server = startServer(address, certOut);
    } catch (IOException e) {
      err.println(FLAGS.program() + ": could not listen on " + address + ": " + e.getMessage());
      return 1;
    }
    out.println("listening on port " + server.getPort());
    out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    server.awaitTermination();
    return 0;
  }

  /**
   * Starts the server of {@code --role=server} on {@code address} (HTTP/2 on TCP, HTTP/3 on UDP),
   * with a new certificate for {@code localhost}, written to {@code certOut}.
   */
  static Server startServer(InetSocketAddress address, Path certOut) throws Exception {
    TestPems pems = TestPems.generate(AUTHORITY_HOST, "dns:" + AUTHORITY_HOST);
    Path dir = Files.createTempDirectory("h3-loss-probe");
    Path cert = Files.writeString(dir.resolve("cert.pem"), pems.certificatePem);
    Path key = Files.writeString(dir.resolve("key.pem"), pems.keyPem);
    try {
      Server server =
          NettyServerBuilder.forAddress(address)
              .useTransportSecurity(cert.toFile(), key.toFile())
              .enableHttp3()
              .addService(new QpsServer.BenchmarkService(null))
              .build()
              .start();
      Files.writeString(certOut, pems.certificatePem);
      return server;
    } finally {
      Files.delete(key);
      Files.delete(cert);
      Files.delete(dir);
    }
  }

  /** The client roles; the main thread's. */
  private static final class Client {
    private final InetSocketAddress server;
    private final File ca;
    private final boolean http3;

    Client(InetSocketAddress server, File ca, boolean http3) {
      this.server = server;
      this.ca = ca;
      this.http3 = http3;
    }

    ManagedChannel channel() throws IOException {
      NettyChannelBuilder builder =
          NettyChannelBuilder.forAddress(server)
              .tlsCredentials(TlsChannelCredentials.newBuilder().trustManager(ca).build())
              .overrideAuthority(AUTHORITY_HOST + ":" + server.getPort());
      if (http3) {
        builder.enableHttp3();
      }
      return builder.build();
    }

    int streams(int calls, int payload, int warmup, int duration, PrintStream out, PrintStream err)
        throws Exception {
      ManagedChannel channel = channel();
      try {
        SimpleRequest request =
            SimpleRequest.newBuilder()
                .setResponseSize(payload)
                .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[payload])))
                .build();
        // The connection first, so that no ping-pong waits for the handshake.
        BenchmarkServiceTern.newBlockingStub(channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .unaryCall(request);
        ClosedLoops loops = new ClosedLoops(calls);
        Histogram histogram = QpsClient.pingPongs(loops, channel, calls, request, warmup, duration);
        boolean failed = loops.reportFailures(FLAGS.program(), err);
        print(out, histogram, failed ? 1 : 0);
        return failed ? 1 : 0;
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(10, TimeUnit.SECONDS);
      }
    }

    int firstCalls(int warmupSamples, int samples, PrintStream out, PrintStream err)
        throws Exception {
      Histogram histogram = new Histogram(ClosedLoops.MAX_LATENCY_NANOS, 3);
      for (int i = 0; i < warmupSamples + samples; i++) {
        long start = System.nanoTime();
        ManagedChannel channel = channel();
        try {
          BenchmarkServiceTern.newBlockingStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .unaryCall(SimpleRequest.getDefaultInstance());
          if (i >= warmupSamples) {
            histogram.recordValue(
                Math.min(System.nanoTime() - start, ClosedLoops.MAX_LATENCY_NANOS));
          }
        } catch (RuntimeException e) {
          err.println(FLAGS.program() + ": a first call failed: " + e.getMessage());
          print(out, histogram, 1);
          return 1;
        } finally {
          channel.shutdownNow();
          channel.awaitTermination(10, TimeUnit.SECONDS);
        }
      }
      print(out, histogram, 0);
      return 0;
    }
  }

  private static void print(PrintStream out, Histogram histogram, int failed) {
    out.printf(
        "count=%d p50_us=%d p90_us=%d p95_us=%d p99_us=%d max_us=%d failed=%d%n",
        histogram.getTotalCount(),
        TimeUnit.NANOSECONDS.toMicros(histogram.getValueAtPercentile(50)),
        TimeUnit.NANOSECONDS.toMicros(histogram.getValueAtPercentile(90)),
        TimeUnit.NANOSECONDS.toMicros(histogram.getValueAtPercentile(95)),
        TimeUnit.NANOSECONDS.toMicros(histogram.getValueAtPercentile(99)),
        TimeUnit.NANOSECONDS.toMicros(histogram.getMaxValue()),
        failed);
    out.flush();
  }
}
