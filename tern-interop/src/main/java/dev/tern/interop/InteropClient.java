package dev.tern.interop;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.TlsChannelCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.testtools.cli.CommandLine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Tern's interop test client: {@code bin/interop-client --server_host=H --server_port=N
 * --test_case=NAME|all ...} (every flag: {@link #FLAGS}, {@code --help}). Prints {@code PASS
 * <case>} or {@code FAIL <case>: <reason>} per case and exits 1 if any failed.
 *
 * <p>{@code bin/interop-client --list_test_cases=true} prints the names of every case, one a line,
 * in the order {@code --test_case=all} runs them, and exits: this list is the one the interop
 * matrix ({@code tern-interop/peers/run_matrix.py}) runs, for every client.
 */
public final class InteropClient {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "interop-client",
              "Tern's gRPC interop test client: runs interop test cases against a server")
          .flag("server_host", "HOST", "localhost", "the server's host")
          .flag("server_port", "N", "8080", "the server's port")
          .flag(
              "test_case",
              "NAME[,NAME...]|all",
              "large_unary",
              "the cases to run (--list_test_cases=true lists them)")
          .bool("use_tls", "connect with TLS")
          .bool("http3", "call over HTTP/3 (QUIC, on UDP) instead of HTTP/2; needs --use_tls=true")
          .bool(
              "use_test_ca",
              "with TLS, trust grpc-java's test CA (ca.pem in $TERN_INTEROP_CERTS_DIR,\n"
                  + "fetched by bin/interop-client) instead of the system's")
          .flag(
              "server_host_override",
              "NAME",
              null,
              "the authority (and TLS server name) to ask for, e.g. foo.test.google.fr")
          .flag("soak_iterations", "N", "10", "calls of the soak cases (rpc_soak, channel_soak)")
          .flag(
              "soak_max_failures",
              "N",
              "0",
              "soak iterations that may fail (an error, or slower than the latency bound)")
          .flag(
              "soak_per_iteration_max_acceptable_latency_ms",
              "MS",
              Integer.toString(SoakConfig.DEFAULT_MAX_LATENCY_MS),
              "a soak iteration slower than this fails")
          .flag(
              "soak_overall_timeout_seconds",
              "S",
              null,
              "no soak iteration starts after this; the case fails if any did not run"
                  + " (default: soak_iterations x the latency bound)")
          .flag(
              "soak_min_time_ms_between_rpcs",
              "MS",
              "0",
              "the least time between the starts of a soak thread's iterations")
          .flag(
              "soak_request_size",
              "BYTES",
              Integer.toString(SoakConfig.DEFAULT_REQUEST_SIZE),
              "a soak call's request payload")
          .flag(
              "soak_response_size",
              "BYTES",
              Integer.toString(SoakConfig.DEFAULT_RESPONSE_SIZE),
              "a soak call's response payload")
          .flag("soak_num_threads", "N", "1", "threads sharing the soak iterations")
          .bool("list_test_cases", "print the name of every case, one a line, and exit")
          .note("Prints 'PASS <case>' or 'FAIL <case>: <reason>' for each case.")
          .note(
              "Exit status: 0 when every case passed; 1 when any failed; 2 for a bad flag or"
                  + " case name.")
          .example("bin/interop-client --server_host=127.0.0.1 --server_port=8080 --test_case=all");

  private InteropClient() {}

  /** Entry point; see {@link #FLAGS}. Exits with {@link #run}'s status. */
  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the cases the flags name against the server they name, one line each to {@code out}.
   *
   * @return 0 when every case passed (or after {@code --help} or {@code --list_test_cases}); 1 when
   *     any failed, or after a one-line message to {@code err} when the TLS material is missing; 2
   *     after a one-line message naming the flag to {@code err} if a flag or case name is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    CommandLine.Values flags;
    List<String> cases;
    SoakConfig soak;
    try {
      flags = FLAGS.parse(args);
      if (flags.bool("list_test_cases")) {
        InteropCases.ALL.forEach(out::println);
        out.flush();
        return 0;
      }
      String testCase = flags.string("test_case");
      cases = testCase.equals("all") ? InteropCases.ALL : List.of(testCase.split(",", -1));
      for (String name : cases) {
        if (!InteropCases.ALL.contains(name)) {
          throw FLAGS.usageError(
              "unknown --test_case "
                  + name
                  + "; known: all, "
                  + String.join(", ", InteropCases.ALL));
        }
      }
      flags.integer("server_port", 1);
      if (flags.bool("http3") && !flags.bool("use_tls")) {
        err.println(
            FLAGS.program() + ": --http3 needs --use_tls=true (HTTP/3 always runs over TLS)");
        return 2;
      }
      soak = soakConfig(flags);
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    Supplier<ManagedChannel> channels;
    try {
      channels = channelFactory(flags);
    } catch (IllegalStateException e) {
      err.println(FLAGS.program() + ": " + e.getMessage());
      return 1;
    }
    ManagedChannel channel = channels.get();
    int failed;
    try {
      failed = runCases(new InteropCases(channel, channels, soak), cases, out);
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    return failed == 0 ? 0 : 1;
  }

  /** The soak cases' settings from the {@code soak_*} flags. */
  private static SoakConfig soakConfig(CommandLine.Values flags) {
    int iterations = flags.integer("soak_iterations", 1);
    int maxLatencyMs = flags.integer("soak_per_iteration_max_acceptable_latency_ms", 1);
    int threads = flags.integer("soak_num_threads", 1);
    if (threads > iterations) {
      throw FLAGS.usageError(
          "--soak_num_threads ("
              + threads
              + ") must not exceed --soak_iterations ("
              + iterations
              + ")");
    }
    return new SoakConfig(
        iterations,
        flags.integer("soak_max_failures", 0),
        maxLatencyMs,
        flags.has("soak_overall_timeout_seconds")
            ? flags.integer("soak_overall_timeout_seconds", 1)
            : SoakConfig.defaultOverallTimeoutSeconds(iterations, maxLatencyMs),
        flags.integer("soak_min_time_ms_between_rpcs", 0),
        flags.integer("soak_request_size", 0),
        flags.integer("soak_response_size", 0),
        threads);
  }

  /** Runs {@code cases}, printing one line each; returns how many failed. */
  static int runCases(InteropCases interop, List<String> cases, PrintStream out) {
    int failed = 0;
    for (String name : cases) {
      try {
        interop.run(name);
        out.println("PASS " + name);
      } catch (Exception | AssertionError e) {
        failed++;
        out.println("FAIL " + name + ": " + describe(e));
      }
      out.flush();
    }
    return failed;
  }

  private static String describe(Throwable e) {
    String message = e.getMessage();
    String text = message == null ? e.getClass().getSimpleName() : message;
    return text.replace('\n', ' ');
  }

  /**
   * Makes the channels the flags describe.
   *
   * @throws IllegalStateException if the test CA is asked for and is not there
   */
  private static Supplier<ManagedChannel> channelFactory(CommandLine.Values flags)
      throws SSLException {
    String host = flags.string("server_host");
    int port = flags.integer("server_port", 1);
    boolean useTls = flags.bool("use_tls");
    boolean http3 = flags.bool("http3");
    String override = flags.string("server_host_override");
    File ca = null;
    if (useTls && flags.bool("use_test_ca")) {
      ca = TestCerts.dir().resolve("ca.pem").toFile();
      if (!ca.canRead()) {
        throw new IllegalStateException(
            "--use_test_ca=true needs ca.pem in "
                + TestCerts.dir().toAbsolutePath()
                + " (run tern-interop/peers/fetch-test-certs.sh)");
      }
    }
    SslContext ssl = null;
    TlsChannelCredentials h3Tls = null;
    if (useTls && http3) {
      // HTTP/3's TLS comes from credentials (QUIC cannot use an SslContext).
      try {
        h3Tls =
            ca == null
                ? TlsChannelCredentials.create()
                : TlsChannelCredentials.newBuilder().trustManager(ca).build();
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + ca + ": " + e.getMessage(), e);
      }
    } else if (useTls) {
      SslContextBuilder tls = NettySslContexts.forClient();
      if (ca != null) {
        tls.trustManager(ca);
      }
      ssl = tls.build();
    }
    TlsChannelCredentials http3Credentials = h3Tls;
    SslContext sslContext = ssl;
    DecompressorRegistry decompressors =
        DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true);
    return () -> {
      NettyChannelBuilder builder =
          NettyChannelBuilder.forAddress(host, port).decompressorRegistry(decompressors);
      if (override != null) {
        builder.overrideAuthority(override);
      }
      if (http3Credentials != null) {
        builder.tlsCredentials(http3Credentials).enableHttp3();
      } else if (sslContext != null) {
        builder.sslContext(sslContext);
      } else {
        builder.usePlaintext();
      }
      return builder.build();
    };
  }
}
