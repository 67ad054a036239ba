package dev.tern.interop;

import dev.tern.DecompressorRegistry;
import dev.tern.Server;
import dev.tern.ServerInterceptors;
import dev.tern.netty.NettyServerBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tern's interop test server: {@code bin/interop-server --port=N --use_tls=true|false}. With TLS it
 * presents the test server certificate ({@code server1.pem}, for {@code *.test.google.fr}) that the
 * peers' clients trust through their test CA.
 */
public final class InteropServer {
  private InteropServer() {}

  /** Builds and starts the server; {@code certDir} is used only with TLS. */
  static Server start(int port, boolean useTls, Path certDir, ScheduledExecutorService scheduler)
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
        throw new IllegalArgumentException(
            "--use_tls=true needs server1.pem and server1.key in "
                + certDir.toAbsolutePath()
                + " (run tern-interop/peers/fetch-test-certs.sh)");
      }
      builder.useTransportSecurity(cert, key);
    }
    return builder.build().start();
  }

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    InteropFlags flags;
    try {
      flags = InteropFlags.parse(args, Set.of("port", "use_tls"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server =
        start(
            flags.integer("port", 8080),
            flags.bool("use_tls", false),
            InteropFlags.certDir(),
            scheduler);
    System.out.println("Tern interop server listening on port " + server.getPort());
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
  }
}
