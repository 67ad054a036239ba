package dev.tern.conformance;

import com.google.protobuf.ByteString;
import dev.tern.Server;
import dev.tern.TlsServerCredentials;
import dev.tern.conformance.v1.ServerCompatRequest;
import dev.tern.conformance.v1.ServerCompatResponse;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.netty.NettySslContexts;
import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Tern's server under test for the Connect conformance suite's server mode ({@code
 * connectconformance --mode server}): reads one {@link ServerCompatRequest} from stdin, starts a
 * Tern Netty server on 127.0.0.1 and a free port serving {@code ConformanceService} ({@link
 * ConformanceServiceImpl}) as asked (TLS with the runner's certificate, client certificates
 * required when the runner gives one, the message receive limit), writes a {@link
 * ServerCompatResponse} with its address to stdout, and serves until the process is stopped (the
 * runner sends SIGTERM) or the runner exits. Exits 0 then; 1 if the request cannot be read or the
 * server cannot start.
 *
 * <p>The server speaks every protocol it has whatever the request's minimum: gRPC over HTTP/2 (h2c
 * or TLS), and with tern-web on the class path gRPC-Web and Connect over HTTP/1.1 and HTTP/2 on the
 * same port.
 */
public final class ConformanceServer {
  private ConformanceServer() {}

  /** Entry point: stdin and stdout carry the runner's messages, so logs go to stderr only. */
  public static void main(String[] args) throws Exception {
    OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
    // Nothing else may write to stdout: a stray line would corrupt the runner's message.
    System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    System.exit(run(new BufferedInputStream(System.in), protocolOut));
  }

  /** Serves as {@code in}'s request asks until stopped; returns the exit status. */
  static int run(InputStream in, OutputStream out) throws InterruptedException {
    ServerCompatRequest request;
    try {
      request = DelimitedMessages.read(in, ServerCompatRequest.parser());
    } catch (IOException e) {
      System.err.println("conformance server: cannot read the runner's request: " + e);
      return 1;
    }
    if (request == null) {
      System.err.println("conformance server: no request on stdin");
      return 1;
    }
    Server server;
    try {
      server = start(request);
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("conformance server: cannot start: " + e.getMessage());
      return 1;
    }
    try {
      DelimitedMessages.write(
          out,
          ServerCompatResponse.newBuilder()
              .setHost("127.0.0.1")
              .setPort(server.getPort())
              .setPemCert(
                  request.getUseTls() ? request.getServerCreds().getCert() : ByteString.EMPTY)
              .build());
    } catch (IOException e) {
      System.err.println("conformance server: cannot answer on stdout: " + e);
      stop(server);
      return 1;
    }
    // The runner closes stdin once it has written the request, and stops this process with
    // SIGTERM when it is done with the server; should the runner itself die first, the server
    // stops with it rather than outlive it.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "conformance-server-stop"));
    ProcessHandle.current()
        .parent()
        .ifPresent(runner -> runner.onExit().thenRun(() -> stop(server)));
    server.awaitTermination();
    return 0;
  }

  /** Starts the server {@code request} describes. */
  static Server start(ServerCompatRequest request) throws IOException {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ConformanceServiceImpl.definition());
    if (request.getMessageReceiveLimit() > 0) {
      builder.maxInboundMessageSize(request.getMessageReceiveLimit());
    }
    if (request.getUseTls()) {
      if (!request.hasServerCreds()) {
        throw new IllegalArgumentException("use_tls without server_creds");
      }
      TlsServerCredentials.Builder tls =
          TlsServerCredentials.newBuilder()
              .keyManager(
                  request.getServerCreds().getCert().newInput(),
                  request.getServerCreds().getKey().newInput());
      if (!request.getClientTlsCert().isEmpty()) {
        tls.trustManager(request.getClientTlsCert().newInput())
            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
      }
      builder.sslContext(NettySslContexts.forServer(tls.build()));
    }
    return builder.build().start();
  }

  private static void stop(Server server) {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
