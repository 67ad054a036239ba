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

/**
 * grpc-java's interop service (its own {@code TestServiceImpl} and interceptors) served the way a
 * grpc-java program serves it, {@code Grpc.newServerBuilderForPort}, which with tern-grpc-java on
 * the class path is a Tern server. Flags as grpc's interop servers take them, {@code --port=N
 * --use_tls=true|false} (TLS with grpc-java's test certificate, {@code server1.pem}, for {@code
 * foo.test.google.fr}); prints {@code port N} once listening and runs until killed. The interop
 * matrix runs it as the server {@code grpc-java-bridge} ({@code interop-server.sh}).
 */
public final class GrpcJavaInteropServer {
  /** The request and response size limit of grpc-java's interop server (very_large_request). */
  private static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

  private GrpcJavaInteropServer() {}

  public static void main(String[] args) throws Exception {
    int port = 0;
    boolean tls = false;
    for (String arg : args) {
      if (arg.startsWith("--port=")) {
        port = Integer.parseInt(arg.substring("--port=".length()));
      } else if (arg.startsWith("--use_tls=")) {
        tls = Boolean.parseBoolean(arg.substring("--use_tls=".length()));
      } else {
        System.err.println("unknown argument: " + arg + " (--port=N --use_tls=true|false)");
        System.exit(2);
      }
    }
    Server server =
        Grpc.newServerBuilderForPort(port, credentials(tls))
            .maxInboundMessageSize(MAX_MESSAGE_SIZE)
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(Executors.newSingleThreadScheduledExecutor()),
                    TestServiceImpl.interceptors()))
            .build()
            .start();
    System.out.println("server " + server.getClass().getName());
    System.out.println("port " + server.getPort());
    System.out.flush();
    server.awaitTermination();
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
