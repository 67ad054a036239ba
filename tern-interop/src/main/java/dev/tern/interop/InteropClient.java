package dev.tern.interop;

import dev.tern.DecompressorRegistry;
import dev.tern.ManagedChannel;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettySslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * Tern's interop test client: {@code bin/interop-client --server_host=H --server_port=N
 * --test_case=NAME|all --use_tls=.. --use_test_ca=.. --server_host_override=..}. Prints {@code PASS
 * <case>} or {@code FAIL <case>: <reason>} per case and exits 1 if any failed.
 *
 * <p>{@code bin/interop-client --list_test_cases=true} prints the names of every case, one a line,
 * in the order {@code --test_case=all} runs them, and exits: this list is the one the interop
 * matrix ({@code tern-interop/peers/run_matrix.py}) runs, for every client.
 */
public final class InteropClient {
  private InteropClient() {}

  /** Entry point. */
  public static void main(String[] args) throws Exception {
    InteropFlags flags;
    try {
      flags =
          InteropFlags.parse(
              args,
              Set.of(
                  "server_host",
                  "server_port",
                  "test_case",
                  "use_tls",
                  "use_test_ca",
                  "server_host_override",
                  "soak_iterations",
                  "list_test_cases"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (flags.bool("list_test_cases", false)) {
      InteropCases.ALL.forEach(System.out::println);
      return;
    }
    String testCase = flags.string("test_case", "large_unary");
    List<String> cases = testCase.equals("all") ? InteropCases.ALL : List.of(testCase.split(","));
    for (String name : cases) {
      if (!InteropCases.ALL.contains(name)) {
        System.err.println("unknown --test_case " + name + "; known: all, " + InteropCases.ALL);
        System.exit(2);
      }
    }
    Supplier<ManagedChannel> channels = channelFactory(flags);
    ManagedChannel channel = channels.get();
    int failed;
    try {
      failed =
          runCases(
              new InteropCases(channel, channels, flags.integer("soak_iterations", 10)),
              cases,
              System.out);
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
    System.exit(failed == 0 ? 0 : 1);
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

  private static Supplier<ManagedChannel> channelFactory(InteropFlags flags) throws SSLException {
    String host = flags.string("server_host", "localhost");
    int port = flags.integer("server_port", 8080);
    boolean useTls = flags.bool("use_tls", false);
    String override = flags.string("server_host_override", null);
    SslContext ssl = null;
    if (useTls) {
      SslContextBuilder tls = NettySslContexts.forClient();
      if (flags.bool("use_test_ca", false)) {
        File ca = InteropFlags.certDir().resolve("ca.pem").toFile();
        if (!ca.canRead()) {
          throw new IllegalArgumentException(
              "--use_test_ca=true needs ca.pem in "
                  + InteropFlags.certDir().toAbsolutePath()
                  + " (run tern-interop/peers/fetch-test-certs.sh)");
        }
        tls.trustManager(ca);
      }
      ssl = tls.build();
    }
    SslContext sslContext = ssl;
    DecompressorRegistry decompressors =
        DecompressorRegistry.getDefaultInstance().with(new CompressionProbe(), true);
    return () -> {
      NettyChannelBuilder builder =
          NettyChannelBuilder.forAddress(host, port).decompressorRegistry(decompressors);
      if (override != null) {
        builder.overrideAuthority(override);
      }
      if (sslContext != null) {
        builder.sslContext(sslContext);
      } else {
        builder.usePlaintext();
      }
      return builder.build();
    };
  }
}
