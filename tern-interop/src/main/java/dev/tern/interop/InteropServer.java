package dev.tern.interop;

import dev.tern.DecompressorRegistry;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testtools.cli.CommandLine;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's interop test server: {@code bin/interop-server --port=N --use_tls=true|false} ({@link
 * #FLAGS}, {@code --help}). With TLS it presents the test server certificate ({@code server1.pem},
 * for {@code *.test.google.fr}) that the peers' clients trust through their test CA.
 */
public final class InteropServer {
  /** The flags; {@code --help} prints them. */
  static final CommandLine FLAGS =
      CommandLine.builder(
              "interop-server",
              "Tern's gRPC interop test server: serves grpc.testing.TestService until stopped")
          .flag("port", "N", "8080", "the port; 0 picks a free one (printed once listening)")
          .bool(
              "use_tls",
              "serve TLS with grpc-java's test certificate (server1.pem and server1.key\n"
                  + "in $TERN_INTEROP_CERTS_DIR, fetched by bin/interop-server)")
          .bool(
              "http3",
              "also serve HTTP/3 (QUIC) on UDP at the same port number; needs\n"
                  + "--use_tls=true (HTTP/3 always runs over TLS 1.3)")
          .note("Prints 'Tern interop server listening on port N' once listening.")
          .example("bin/interop-server --port=8080 --use_tls=true --http3");

  private InteropServer() {}

  /**
   * Builds and starts the server; {@code certDir} is used only with TLS.
   *
   * @throws IllegalStateException if TLS is asked for and the certificate or key is missing
   */
  static Server start(int port, boolean useTls, Path certDir, ScheduledExecutorService scheduler)
      throws IOException {
    return start(port, useTls, false, certDir, scheduler);
  }

  /**
   * As {@link #start(int, boolean, Path, ScheduledExecutorService)}, also serving HTTP/3 on UDP
   * with {@code http3} (which needs {@code useTls}).
   */
  static Server start(
      int port, boolean useTls, boolean http3, Path certDir, ScheduledExecutorService scheduler)
      throws IOException {
    NettyServerBuilder builder =
        NettyServerBuilder.forPort(port)
            // grpc-java's client sends ~10 MB in very_large_request; its server allows 16 MiB.
            .maxInboundMessageSize(16 * 1024 * 1024)
            .decompressorRegistry(
                DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true))
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(scheduler).bindService(),
                    new InteropServerInterceptors.ExpectCompressed(),
                    new InteropServerInterceptors.EchoMetadata()));
    if (useTls) {
      File cert = certDir.resolve("server1.pem").toFile();
      File key = certDir.resolve("server1.key").toFile();
      if (!cert.canRead() || !key.canRead()) {
        throw new IllegalStateException(
            "--use_tls=true needs server1.pem and server1.key in "
                + certDir.toAbsolutePath()
                + " (run tern-interop/peers/fetch-test-certs.sh)");
      }
      builder.useTransportSecurity(cert, key);
    }
    if (http3) {
      builder.enableHttp3();
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
   *     err} if it cannot listen or its TLS material is missing; 2 after a one-line message naming
   *     the flag if a flag is bad
   */
  static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    int port;
    boolean useTls;
    boolean http3;
    try {
      CommandLine.Values flags = FLAGS.parse(args);
      port = flags.integer("port", 0);
      useTls = flags.bool("use_tls");
      http3 = flags.bool("http3");
      if (http3 && !useTls) {
        err.println(
            FLAGS.program() + ": --http3 needs --use_tls=true (HTTP/3 always runs over TLS)");
        return 2;
      }
    } catch (CommandLine.Exit exit) {
      return exit.report(out, err);
    }
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server;
    try {
      server = start(port, useTls, http3, TestCerts.dir(), scheduler);
    } catch (IOException | IllegalStateException e) {
      scheduler.shutdownNow();
      err.println(FLAGS.program() + ": could not serve on port " + port + ": " + e.getMessage());
      return 1;
    }
    out.println(
        "Tern interop server listening on port "
            + server.getPort()
            + (http3 ? " (HTTP/3 on UDP port " + server.getPort() + " too)" : ""));
    out.flush();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdownNow();
                  try {
                    server.awaitTermination(5, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  scheduler.shutdownNow();
                }));
    server.awaitTermination();
    return 0;
  }
}
