package dev.tern.benchmarks.startup;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.interop.testing.BenchmarkServiceTern;
import dev.tern.interop.testing.SimpleRequest;
import java.util.concurrent.TimeUnit;

/**
 * Makes one empty unary call to {@code BenchmarkService} at {@code HOST:PORT} (the only argument)
 * with Tern's blocking stub over a plaintext channel, prints {@link #DONE} once it is answered, and
 * exits: the program {@code bin/bench-compare}'s start-up part times from launch to that line.
 */
public final class TernFirstCall {
  /** The line printed once the call is answered. */
  public static final String DONE = "first call answered";

  private TernFirstCall() {}

  /** Entry point: {@code TernFirstCall HOST:PORT}. Exits 0 once answered, 2 on a bad argument. */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: TernFirstCall HOST:PORT");
      System.exit(2);
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(args[0]).usePlaintext().build();
    try {
      BenchmarkServiceTern.newBlockingStub(channel)
          .withDeadlineAfter(60, TimeUnit.SECONDS)
          .unaryCall(SimpleRequest.getDefaultInstance());
      System.out.println(DONE);
      System.out.flush();
    } finally {
      channel.shutdownNow();
    }
  }
}
