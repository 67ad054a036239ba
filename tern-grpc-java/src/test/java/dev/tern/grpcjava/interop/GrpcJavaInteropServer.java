package dev.tern.grpcjava.interop;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.testing.TlsTesting;
import io.grpc.testing.integration.TestServiceImpl;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's interop service (its own {@code TestServiceImpl} and interceptors) served the way a
 * grpc-java program serves it, {@code Grpc.newServerBuilderForPort}, which with tern-grpc-java on
 * the class path is a Tern server. Prints {@code port N} once listening. Two ways to run it:
 *
 * <ul>
 *   <li>{@code GrpcJavaInteropServer PORT} (0: any free one), plaintext, until its standard input
 *       ends: {@code run-grpc-java-interop.sh} runs grpc-java's interop client against it;
 *   <li>{@code --port=N --use_tls=true|false}, as grpc's interop servers take them, until it is
 *       killed: the interop matrix's server {@code grpc-java-bridge} ({@code interop-server.sh}),
 *       with grpc-java's test certificate ({@code server1.pem}, for {@code foo.test.google.fr})
 *       when TLS is asked for.
 * </ul>
 */
public final class GrpcJavaInteropServer {
  /** The request and response size limit of grpc-java's interop server (very_large_request). */
  private static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

  private GrpcJavaInteropServer() {}

  public static void main(String[] args) throws Exception {
    boolean flags = args.length > 0 && args[0].startsWith("--");
    int port = 0;
    boolean tls = false;
    for (String arg : args) {
      if (!flags) {
        port = Integer.parseInt(arg);
      } else if (arg.startsWith("--port=")) {
        port = Integer.parseInt(arg.substring("--port=".length()));
      } else if (arg.startsWith("--use_tls=")) {
        tls = Boolean.parseBoolean(arg.substring("--use_tls=".length()));
      } else {
        System.err.println("unknown argument: " + arg + " (--port=N --use_tls=true|false)");
        System.exit(2);
      }
    }
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server =
        Grpc.newServerBuilderForPort(port, credentials(tls))
            .maxInboundMessageSize(MAX_MESSAGE_SIZE)
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(scheduler), TestServiceImpl.interceptors()))
            .build()
            .start();
    System.out.println("server " + server.getClass().getName());
    System.out.println("port " + server.getPort());
    System.out.flush();
    if (flags) {
      server.awaitTermination();
      return;
    }
    while (System.in.read() >= 0) {
      // runs until the standard input ends
    }
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    scheduler.shutdownNow();
  }

  private static ServerCredentials credentials(boolean tls) throws IOException {
    if (!tls) {
      return InsecureServerCredentials.create();
    }
    try (InputStream chain = TlsTesting.loadCert("server1.pem");
        InputStream key = TlsTesting.loadCert("server1.key")) {
      return TlsServerCredentials.create(chain, key);
    }
  }
}
