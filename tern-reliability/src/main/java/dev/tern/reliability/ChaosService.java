package dev.tern.reliability;

import java.nio.ByteBuffer;

/**
 * The service every server of the harness serves, on Tern and on grpc-java alike, with byte-array
 * messages: {@value #UNARY} echoes its request; {@value #SERVER_STREAM} answers its request {@link
 * CallKind#STREAM_MESSAGES} times; {@value #CLIENT_STREAM} answers the last request once the client
 * is done; {@value #BIDI} echoes each request as it arrives; {@value #HOLD} answers its request
 * once and then never ends the call (the client cancels it or its deadline passes); {@value #WORK}
 * (the overload runs' call) answers {@link #work} of its request, a fixed amount of CPU work.
 */
public final class ChaosService {
  /** The service's full name, also the name client-side health checking asks about. */
  public static final String SERVICE = "tern.chaos.Chaos";

  public static final String UNARY = "Unary";
  public static final String SERVER_STREAM = "ServerStream";
  public static final String CLIENT_STREAM = "ClientStream";
  public static final String BIDI = "Bidi";
  public static final String HOLD = "Hold";
  public static final String WORK = "Work";

  /**
   * The rounds of {@link #work}: a fixed amount of CPU per call (about 0.3 ms on a quiet 2-core
   * machine, 0.6 ms on a busy one), so that two cores saturate at a modest rate of calls.
   */
  static final int WORK_ROUNDS = 100_000;

  /**
   * The client's service config, the same for both peers, as docs/service-config.md and
   * docs/health.md recommend: round_robin with client-side health checking, retries on UNAVAILABLE
   * for every method, hedging for the small unary call, and retry throttling.
   */
  public static final String SERVICE_CONFIG =
      """
      {
        "loadBalancingConfig": [{"round_robin": {}}],
        "healthCheckConfig": {"serviceName": "tern.chaos.Chaos"},
        "methodConfig": [
          {
            "name": [{"service": "tern.chaos.Chaos"}],
            "retryPolicy": {
              "maxAttempts": 3,
              "initialBackoff": "0.05s",
              "maxBackoff": "0.5s",
              "backoffMultiplier": 2,
              "retryableStatusCodes": ["UNAVAILABLE"]
            }
          },
          {
            "name": [{"service": "tern.chaos.Chaos", "method": "Unary"}],
            "hedgingPolicy": {
              "maxAttempts": 2,
              "hedgingDelay": "0.5s",
              "nonFatalStatusCodes": ["UNAVAILABLE"]
            }
          }
        ],
        "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
      }
      """;

  /** Client keepalive: the lowest time gRFC A8 allows, and a short timeout. */
  public static final long KEEPALIVE_TIME_SECONDS = 10;

  public static final long KEEPALIVE_TIMEOUT_SECONDS = 2;

  private ChaosService() {}

  /** The full method name of {@code method}. */
  public static String fullName(String method) {
    return SERVICE + "/" + method;
  }

  /**
   * The answer of a {@value #WORK} call: {@link #WORK_ROUNDS} rounds of a xorshift generator seeded
   * by the request (each round depends on the last, so the JIT can neither skip nor parallelise
   * them), as 8 bytes.
   */
  static byte[] work(byte[] request) {
    long x = request.length == 0 ? 1 : request[0] | 1;
    for (int i = 0; i < WORK_ROUNDS; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return ByteBuffer.allocate(Long.BYTES).putLong(x).array();
  }

  /** The request of a call of {@code kind}. */
  static byte[] request(CallKind kind) {
    return new byte[kind == CallKind.UNARY_1MIB ? CallKind.LARGE : CallKind.SMALL];
  }
}
