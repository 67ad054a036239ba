package dev.tern.benchmarks.qps;

import com.google.protobuf.ByteString;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.testtools.cli.CommandLine;

/**
 * The load flags both qps clients ({@link QpsClient} and {@link GrpcJavaBalancedClient}) take,
 * spelled and defaulted as grpc-java's {@code AsyncClient} has them, and their values once parsed.
 * Immutable, so thread-safe.
 *
 * @param channels {@code --channels}
 * @param outstanding {@code --outstanding_rpcs}, calls in flight per channel
 * @param clientPayload {@code --client_payload}, request bytes
 * @param serverPayload {@code --server_payload}, response bytes
 * @param warmupSeconds {@code --warmup_duration}
 * @param durationSeconds {@code --duration}
 * @param directExecutor {@code --directexecutor}
 */
record LoadFlags(
    int channels,
    int outstanding,
    int clientPayload,
    int serverPayload,
    int warmupSeconds,
    int durationSeconds,
    boolean directExecutor) {

  /** What the exit status of a client means, for its help. */
  static final String EXIT_STATUS =
      "Exit status: 0 when every call succeeded; 1 when any call failed, none succeeded or the"
          + " server could not be reached; 2 for a bad flag.";

  /** Declares the load flags on {@code flags}. */
  static CommandLine.Builder declare(CommandLine.Builder flags) {
    return flags
        .flag("channels", "N", "4", "channels")
        .flag("outstanding_rpcs", "N", "10", "calls in flight per channel")
        .flag("client_payload", "BYTES", "0", "request payload")
        .flag("server_payload", "BYTES", "0", "response payload")
        .flag("warmup_duration", "S", "10", "seconds of calls before measuring")
        .flag("duration", "S", "60", "measured seconds")
        .bool("directexecutor", "run callbacks on the event loops");
  }

  /**
   * The load flags of {@code values}.
   *
   * @throws CommandLine.Exit naming the flag when a value is out of range
   */
  static LoadFlags of(CommandLine.Values values) {
    return new LoadFlags(
        values.integer("channels", 1),
        values.integer("outstanding_rpcs", 1),
        values.integer("client_payload", 0),
        values.integer("server_payload", 0),
        values.integer("warmup_duration", 0),
        values.integer("duration", 1),
        values.bool("directexecutor"));
  }

  /** The request every call sends. */
  SimpleRequest request() {
    return SimpleRequest.newBuilder()
        .setResponseSize(serverPayload)
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[clientPayload])))
        .build();
  }

  /** How many closed loops run: {@code channels * outstanding}. */
  int loops() {
    return channels * outstanding;
  }
}
