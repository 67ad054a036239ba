package dev.tern.grpcjava.interop;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.testing.integration.TestServiceImpl;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * grpc-java's interop service (its own {@code TestServiceImpl} and interceptors) served the way a
 * grpc-java program serves it, {@code Grpc.newServerBuilderForPort}, which with tern-grpc-java on
 * the class path is a Tern server. Used by {@code run-grpc-java-interop.sh} to run grpc-java's
 * interop client against it. Prints {@code port N} once listening; stops when its standard input
 * ends. Arguments: the port (0: any free one).
 */
public final class GrpcJavaInteropServer {
  /** The request and response size limit of grpc-java's interop server (very_large_request). */
  private static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

  private GrpcJavaInteropServer() {}

  public static void main(String[] args) throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    Server server =
        Grpc.newServerBuilderForPort(Integer.parseInt(args[0]), InsecureServerCredentials.create())
            .maxInboundMessageSize(MAX_MESSAGE_SIZE)
            .addService(
                ServerInterceptors.intercept(
                    new TestServiceImpl(scheduler), TestServiceImpl.interceptors()))
            .build()
            .start();
    System.out.println("server " + server.getClass().getName());
    System.out.println("port " + server.getPort());
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until the standard input ends
    }
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    scheduler.shutdownNow();
  }
}
