package dev.tern.benchmarks.jmh;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.TlsChannelCredentials;
import dev.tern.TlsServerCredentials;
import dev.tern.netty.NettyChannelBuilder;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * TLS costs, Tern beside grpc-java, each on the JDK's TLS and on OpenSSL (BoringSSL: Tern through
 * netty-tcnative-boringssl-static, grpc-java through the one inside grpc-netty-shaded):
 *
 * <ul>
 *   <li>{@link #handshakeAndCall}: a new channel, one 1 KiB unary call (so one TCP connection and
 *       one TLS handshake), the channel shut down. Read as handshakes per second. Both systems
 *       reuse one client context across channels, so TLS 1.3 session resumption happens as each
 *       system's defaults allow.
 *   <li>{@link #handshakesFourAtOnce}: the same from four threads at once, so that the cores, not
 *       the threads' wake-ups, bound it.
 *   <li>{@link #unaryCall1024}: blocking 1 KiB unary calls on one established TLS connection.
 * </ul>
 *
 * <p>The key exchange is each system's default unless {@link #groups} is {@code x25519}: on
 * OpenSSL, Tern's Netty 4.2 offers the hybrid post-quantum X25519MLKEM768 first, grpc-java's shaded
 * Netty X25519, so the default handshake rows compare different amounts of computation.
 *
 * <p>Both ends use the same EC P-256 certificate (made by the JDK's keytool at setup) from the same
 * PEM files; Tern's contexts come from {@link TlsServerCredentials} and {@link
 * TlsChannelCredentials}, grpc-java's from {@code GrpcSslContexts} with the same provider. Run with
 * {@code bin/lib/launch.sh tern-benchmarks org.openjdk.jmh.Main TlsBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TlsBenchmark {
  private static final String[] X25519 = {"X25519"};

  @Param({"tern", "grpc-java"})
  public String system;

  @Param({"jdk", "openssl"})
  public String provider;

  /**
   * The key exchange groups: {@code default} is each system's own (on OpenSSL, Tern's Netty 4.2
   * offers the hybrid post-quantum X25519MLKEM768 first, grpc-java's shaded Netty 4.1 X25519);
   * {@code x25519} makes both ends of both systems offer X25519 only (OpenSSL only), the same key
   * exchange for both.
   */
  @Param({"default"})
  public String groups;

  private final byte[] message = new byte[1024];
  private Path dir;
  private Target target;

  /** One system's TLS server and its client side. */
  private interface Target {
    byte[] unary(byte[] request);

    byte[] handshakeAndCall(byte[] request) throws InterruptedException;

    void shutdown() throws InterruptedException;
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("tern-tls-bench-");
    File chain = dir.resolve("server.pem").toFile();
    File key = dir.resolve("server.key").toFile();
    writePem(dir, chain.toPath(), key.toPath());
    target =
        switch (system) {
          case "tern" -> new Tern(chain, key, provider, x25519());
          case "grpc-java" -> new GrpcJava(chain, key, provider, x25519());
          default -> throw new IllegalArgumentException("system: tern or grpc-java");
        };
  }

  private boolean x25519() {
    return switch (groups) {
      case "default" -> false;
      case "x25519" -> {
        if (!provider.equals("openssl")) {
          throw new IllegalArgumentException("groups=x25519 is for provider=openssl");
        }
        yield true;
      }
      default -> throw new IllegalArgumentException("groups: default or x25519, was " + groups);
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    target.shutdown();
    try (var files = Files.list(dir)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Files.delete(file);
      }
    }
    Files.delete(dir);
  }

  /** A new TLS connection (handshake included) and one 1 KiB unary call on it. */
  @Benchmark
  public byte[] handshakeAndCall() throws InterruptedException {
    return target.handshakeAndCall(message);
  }

  /**
   * Four {@link #handshakeAndCall}s at once, from four threads: handshakes a second with the cores
   * busy. One at a time, a handshake is bound by the threads of client and server waking each other
   * (a recording showed about a tenth of a core busy), so that row's error is about its score.
   */
  @Benchmark
  @Threads(4)
  public byte[] handshakesFourAtOnce() throws InterruptedException {
    return target.handshakeAndCall(message);
  }

  /** One blocking 1 KiB unary call on an established TLS connection. */
  @Benchmark
  public byte[] unaryCall1024() {
    return target.unary(message);
  }

  private static final class Tern implements Target {
    private final Server server;
    private final SslContext clientContext;
    private final ManagedChannel channel;
    private final String previousProvider;

    Tern(File chain, File key, String provider, boolean x25519) throws IOException {
      previousProvider = System.setProperty(NettySslContexts.PROVIDER_PROPERTY, provider);
      SslContext serverContext =
          x25519
              ? NettySslContexts.configureServer(SslContextBuilder.forServer(chain, key))
                  .option(OpenSslContextOption.GROUPS, X25519)
                  .build()
              : NettySslContexts.forServer(TlsServerCredentials.create(chain, key));
      server =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .sslContext(serverContext)
              .directExecutor()
              .addService(
                  ServerServiceDefinition.builder("bench.Echo")
                      .addMethod(
                          TernEchoTarget.UNARY,
                          ServerCalls.asyncUnaryCall(
                              (byte[] request, dev.tern.stub.StreamObserver<byte[]> responses) -> {
                                responses.onNext(request);
                                responses.onCompleted();
                              }))
                      .build())
              .build()
              .start();
      clientContext =
          x25519
              ? NettySslContexts.forClient()
                  .trustManager(chain)
                  .option(OpenSslContextOption.GROUPS, X25519)
                  .build()
              : NettySslContexts.forClient(
                  TlsChannelCredentials.newBuilder().trustManager(chain).build());
      channel = newChannel();
    }

    private ManagedChannel newChannel() {
      return NettyChannelBuilder.forAddress("localhost", server.getPort())
          .sslContext(clientContext)
          .directExecutor()
          .build();
    }

    @Override
    public byte[] unary(byte[] request) {
      return ClientCalls.blockingUnaryCall(
          channel, TernEchoTarget.UNARY, CallOptions.DEFAULT, request);
    }

    @Override
    public byte[] handshakeAndCall(byte[] request) throws InterruptedException {
      ManagedChannel fresh = newChannel();
      try {
        return ClientCalls.blockingUnaryCall(
            fresh, TernEchoTarget.UNARY, CallOptions.DEFAULT, request);
      } finally {
        fresh.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }

    @Override
    public void shutdown() throws InterruptedException {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      if (previousProvider == null) {
        System.clearProperty(NettySslContexts.PROVIDER_PROPERTY);
      } else {
        System.setProperty(NettySslContexts.PROVIDER_PROPERTY, previousProvider);
      }
    }
  }

  private static final class GrpcJava implements Target {
    private final io.grpc.Server server;
    private final io.grpc.netty.shaded.io.netty.handler.ssl.SslContext clientContext;
    private final io.grpc.ManagedChannel channel;

    GrpcJava(File chain, File key, String provider, boolean x25519) throws IOException {
      io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider sslProvider =
          provider.equals("openssl")
              ? io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider.OPENSSL
              : io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider.JDK;
      server =
          io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
                  new InetSocketAddress("127.0.0.1", 0))
              .sslContext(
                  grpcGroups(
                          GrpcSslContexts.configure(
                              io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder.forServer(
                                  chain, key),
                              sslProvider),
                          x25519)
                      .build())
              .directExecutor()
              .addService(
                  io.grpc.ServerServiceDefinition.builder("bench.Echo")
                      .addMethod(
                          GrpcJavaEchoTarget.UNARY,
                          io.grpc.stub.ServerCalls.asyncUnaryCall(
                              (byte[] request, io.grpc.stub.StreamObserver<byte[]> responses) -> {
                                responses.onNext(request);
                                responses.onCompleted();
                              }))
                      .build())
              .build()
              .start();
      clientContext =
          grpcGroups(
                  GrpcSslContexts.configure(
                      GrpcSslContexts.forClient().trustManager(chain), sslProvider),
                  x25519)
              .build();
      channel = newChannel();
    }

    private io.grpc.ManagedChannel newChannel() {
      return io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
              "localhost", server.getPort())
          .sslContext(clientContext)
          .directExecutor()
          .build();
    }

    @Override
    public byte[] unary(byte[] request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          channel, GrpcJavaEchoTarget.UNARY, io.grpc.CallOptions.DEFAULT, request);
    }

    @Override
    public byte[] handshakeAndCall(byte[] request) throws InterruptedException {
      io.grpc.ManagedChannel fresh = newChannel();
      try {
        return io.grpc.stub.ClientCalls.blockingUnaryCall(
            fresh, GrpcJavaEchoTarget.UNARY, io.grpc.CallOptions.DEFAULT, request);
      } finally {
        fresh.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    }

    @Override
    public void shutdown() throws InterruptedException {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }

    private static io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder grpcGroups(
        io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder builder, boolean x25519) {
      return x25519
          ? builder.option(
              io.grpc.netty.shaded.io.netty.handler.ssl.OpenSslContextOption.GROUPS, X25519)
          : builder;
    }
  }

  /** Makes an EC P-256 key and self-signed certificate for localhost with keytool, as PEM. */
  static void writePem(Path dir, Path chain, Path key)
      throws IOException, GeneralSecurityException {
    Path store = dir.resolve("server.p12");
    String password = "tern-bench";
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process process =
        new ProcessBuilder(
                List.of(
                    keytool,
                    "-genkeypair",
                    "-alias",
                    "server",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=localhost",
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-validity",
                    "2",
                    "-storetype",
                    "PKCS12",
                    "-keystore",
                    store.toString(),
                    "-storepass",
                    password,
                    "-keypass",
                    password))
            .redirectErrorStream(true)
            .start();
    try {
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("keytool failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running keytool", e);
    } finally {
      process.destroyForcibly();
    }
    KeyStore keyStore = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keyStore.load(in, password.toCharArray());
    }
    Files.delete(store);
    PrivateKey privateKey = (PrivateKey) keyStore.getKey("server", password.toCharArray());
    X509Certificate certificate = (X509Certificate) keyStore.getCertificate("server");
    Base64.Encoder base64 = Base64.getMimeEncoder(64, new byte[] {'\n'});
    Files.writeString(
        chain,
        "-----BEGIN CERTIFICATE-----\n"
            + base64.encodeToString(certificate.getEncoded())
            + "\n-----END CERTIFICATE-----\n");
    Files.writeString(
        key,
        "-----BEGIN PRIVATE KEY-----\n"
            + base64.encodeToString(privateKey.getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
  }
}
