package dev.tern.benchmarks.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What LargeUnaryBenchmark relies on, for both systems over Netty: 16 MiB unary calls go through
 * once both sides allow them, and fail as both systems' defaults say otherwise.
 */
class LargeUnaryTest {
  private static final int MIB = 1024 * 1024;

  @ParameterizedTest
  @ValueSource(strings = {"tern", "grpc-java"})
  void sixteenMibEchoesWhenBothSidesAllowIt(String system) throws Exception {
    EchoTarget target =
        EchoTarget.create(
            system,
            "netty",
            new EchoTarget.Options(
                false, false, false, null, LargeUnaryBenchmark.MAX_MESSAGE_SIZE));
    try {
      byte[] request = new byte[16 * MIB];
      request[request.length - 1] = 42;
      assertThat(target.unary(request)).isEqualTo(request);
    } finally {
      target.shutdown();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tern", "grpc-java"})
  void sixteenMibFailsAtTheDefaultLimit(String system) throws Exception {
    EchoTarget target = EchoTarget.create(system, "netty", EchoTarget.Options.defaults());
    try {
      assertThatThrownBy(() -> target.unary(new byte[16 * MIB]))
          .isInstanceOf(
              system.equals("tern")
                  ? dev.tern.StatusRuntimeException.class
                  : io.grpc.StatusRuntimeException.class)
          .hasMessage(
              "RESOURCE_EXHAUSTED: gRPC message exceeds maximum size %d: %d", 4 * MIB, 16 * MIB);
    } finally {
      target.shutdown();
    }
  }
}
