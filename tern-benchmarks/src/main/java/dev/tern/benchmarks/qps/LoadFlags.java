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
 * @param unaryMethod {@code --unary_method}, the full method name ({@code SERVICE/METHOD}) the
 *     unary calls go to
 */
record LoadFlags(
    int channels,
    int outstanding,
    int clientPayload,
    int serverPayload,
    int warmupSeconds,
    int durationSeconds,
    boolean directExecutor,
    String unaryMethod) {

  /** What the exit status of a client means, for its help. */
  static final String EXIT_STATUS =
      "Exit status: 0 when every call succeeded; 1 when any call failed, none succeeded or the"
          + " server could not be reached; 2 for a bad flag.";

  /** The benchmark service's unary method, where the calls go unless {@code --unary_method}. */
  static final String UNARY_CALL = "grpc.testing.BenchmarkService/UnaryCall";

  /** Declares the load flags on {@code flags}. */
  static CommandLine.Builder declare(CommandLine.Builder flags) {
    return flags
        .flag("channels", "N", "4", "channels")
        .flag("outstanding_rpcs", "N", "10", "calls in flight per channel")
        .flag("client_payload", "BYTES", "0", "request payload")
        .flag("server_payload", "BYTES", "0", "response payload")
        .flag("warmup_duration", "S", "10", "seconds of calls before measuring")
        .flag("duration", "S", "60", "measured seconds")
        .bool("directexecutor", "run callbacks on the event loops")
        .flag(
            "unary_method",
            "SERVICE/METHOD",
            UNARY_CALL,
            "where the unary calls go (the same messages); bin/bench-compare's client part\n"
                + "points it at nghttpd's static answer, e.g. "
                + "grpc.testing.BenchmarkService/Unary.grpc");
  }

  /**
   * The load flags of {@code values}, parsed by {@code commandLine}.
   *
   * @throws CommandLine.Exit naming the flag when a value is out of range or of the wrong form
   */
  static LoadFlags of(CommandLine commandLine, CommandLine.Values values) {
    String unaryMethod = values.string("unary_method");
    int slash = unaryMethod.indexOf('/');
    if (slash <= 0
        || slash == unaryMethod.length() - 1
        || unaryMethod.indexOf('/', slash + 1) >= 0) {
      throw commandLine.usageError(
          "--unary_method must be SERVICE/METHOD (one slash, neither side empty), got '"
              + unaryMethod
              + "'");
    }
    return new LoadFlags(
        values.integer("channels", 1),
        values.integer("outstanding_rpcs", 1),
        values.integer("client_payload", 0),
        values.integer("server_payload", 0),
        values.integer("warmup_duration", 0),
        values.integer("duration", 1),
        values.bool("directexecutor"),
        unaryMethod);
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
