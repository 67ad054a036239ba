package dev.tern.benchmarks.startup;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.benchmarks.proto.BenchmarkServiceGrpc;
import io.grpc.benchmarks.proto.Messages;
import java.util.concurrent.TimeUnit;

/**
 * {@link TernFirstCall} on grpc-java 1.79: one empty unary call with grpc-java's generated blocking
 * stub (grpc-benchmarks' {@code BenchmarkServiceGrpc}) over a plaintext channel from {@code
 * ManagedChannelBuilder.forTarget}, then {@link TernFirstCall#DONE} and exit. Run on grpc-java's
 * class path with tern-benchmarks' classes after it.
 */
public final class GrpcJavaFirstCall {
  private GrpcJavaFirstCall() {}

  /**
   * Entry point: {@code GrpcJavaFirstCall HOST:PORT}. Exits 0 once answered, 2 on a bad argument.
   */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: GrpcJavaFirstCall HOST:PORT");
      System.exit(2);
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(args[0]).usePlaintext().build();
    try {
      BenchmarkServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .unaryCall(Messages.SimpleRequest.getDefaultInstance());
      System.out.println(TernFirstCall.DONE);
      System.out.flush();
    } finally {
      channel.shutdownNow();
    }
  }
}
