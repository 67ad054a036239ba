package dev.tern.reliability;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The service every server of the harness serves, on Tern and on grpc-java alike, with byte-array
 * messages: {@value #UNARY} echoes its request; {@value #SERVER_STREAM} answers its request {@link
 * CallKind#STREAM_MESSAGES} times; {@value #CLIENT_STREAM} answers the last request once the client
 * is done; {@value #BIDI} echoes each request as it arrives; {@value #HOLD} answers its request
 * once and then never ends the call (the client cancels it or its deadline passes). The overload
 * runs' calls ({@link WorkCall}): {@value #WORK} answers {@link #work} of its request, a fixed
 * amount of CPU work chosen by the request; {@value #BLOCK} waits for one of {@link
 * #BACKEND_CONNECTIONS} connections of a backend, holds it {@link #BLOCK_TIME} and echoes its
 * request; {@value #WORK_STREAM} answers {@link #WORK_STREAM_MESSAGES} times {@link #work} of its
 * request.
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
  public static final String BLOCK = "Block";
  public static final String WORK_STREAM = "WorkStream";

  /**
   * The rounds of {@link #work}: a fixed amount of CPU per call (about 0.3 ms on a quiet 2-core
   * machine, 0.6 ms on a busy one), so that two cores saturate at a modest rate of calls.
   */
  static final int WORK_ROUNDS = 100_000;

  /**
   * How long a {@value #BLOCK} call's handler holds a backend connection, asleep: long against the
   * CPU a call costs (tens of microseconds), so that the backend, not the CPU, bounds the calls
   * served a second.
   */
  static final Duration BLOCK_TIME = Duration.ofMillis(20);

  /**
   * The connections of the backend a {@value #BLOCK} call waits on, as a blocking service waits on
   * its database's connection pool: the server's capacity for these calls is this many divided by
   * {@link #BLOCK_TIME} (3,200 calls/s), on any executor and any JDK, low enough for one client
   * core to offer five times as many; calls beyond it wait, and only their latency tells the server
   * so.
   */
  static final int BACKEND_CONNECTIONS = 64;

  /** The backend's connections, first come first served (per server JVM: one server each). */
  private static final Semaphore BACKEND = new Semaphore(BACKEND_CONNECTIONS, true);

  /** The messages a {@value #WORK_STREAM} call answers, each {@link WorkCall#STREAM}'s rounds. */
  static final int WORK_STREAM_MESSAGES = 10;

  /**
   * The overload runs' calls: the method (each constant's doc), and the CPU work the request asks
   * of each answer (the request's second byte is the constant's ordinal; a 1-byte request is {@link
   * #STANDARD}). The cheap and expensive costs are a third and three times the standard one, so
   * that a mix of 9 cheap calls to 1 expensive one spends half the CPU on each kind at 0.6 of a
   * standard call's cost on average.
   */
  public enum WorkCall {
    /** {@value ChaosService#WORK} at {@link ChaosService#WORK_ROUNDS}. */
    STANDARD(WORK_ROUNDS),
    /** {@value ChaosService#WORK} at a third of the standard cost. */
    CHEAP(WORK_ROUNDS / 3),
    /** {@value ChaosService#WORK} at three times the standard cost. */
    EXPENSIVE(WORK_ROUNDS * 3),
    /** {@value ChaosService#BLOCK}: no CPU work, a sleep. */
    BLOCKING(0),
    /** {@value ChaosService#WORK_STREAM}: each message a tenth of the standard cost. */
    STREAM(WORK_ROUNDS / 10);

    private final int rounds;

    WorkCall(int rounds) {
      this.rounds = rounds;
    }

    /** The xorshift rounds of each answer. */
    int rounds() {
      return rounds;
    }

    /** The request that asks for this call. */
    public byte[] request() {
      return this == STANDARD ? new byte[] {1} : new byte[] {1, (byte) ordinal()};
    }

    /** The name in the report's counts by kind. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

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
   * The answer of a {@value #WORK} call, or each of a {@value #WORK_STREAM} call's: the rounds of
   * the {@link WorkCall} the request names (a 1-byte request: {@link #WORK_ROUNDS}) of a xorshift
   * generator seeded by the request (each round depends on the last, so the JIT can neither skip
   * nor parallelise them), as 8 bytes.
   *
   * @throws IllegalArgumentException if the request names no call that costs CPU
   */
  static byte[] work(byte[] request) {
    int rounds = WORK_ROUNDS;
    if (request.length > 1) {
      int ordinal = request[1];
      if (ordinal < 0
          || ordinal >= WorkCall.values().length
          || WorkCall.values()[ordinal].rounds() == 0) {
        throw new IllegalArgumentException(
            "request's second byte must name a WorkCall that costs CPU, was " + ordinal);
      }
      rounds = WorkCall.values()[ordinal].rounds();
    }
    long x = request.length == 0 ? 1 : request[0] | 1;
    for (int i = 0; i < rounds; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return ByteBuffer.allocate(Long.BYTES).putLong(x).array();
  }

  /**
   * The answers of a {@value #WORK_STREAM} call: {@link #WORK_STREAM_MESSAGES} times {@link #work}
   * of {@code request}, each given to {@code answers}. Stops before an answer once {@code
   * cancelled} says the client is gone (it cancelled, or its deadline passed), as a handler should,
   * rather than computing answers nobody reads.
   *
   * @return whether every answer was given (the caller then ends the stream OK)
   */
  static boolean workStream(byte[] request, BooleanSupplier cancelled, Consumer<byte[]> answers) {
    for (int i = 0; i < WORK_STREAM_MESSAGES; i++) {
      if (cancelled.getAsBoolean()) {
        return false;
      }
      answers.accept(work(request));
    }
    return true;
  }

  /**
   * The answer of a {@value #BLOCK} call: its request, once a backend connection was free and the
   * call held it {@link #BLOCK_TIME}. Blocks the calling thread throughout.
   */
  static byte[] block(byte[] request) throws InterruptedException {
    BACKEND.acquire();
    try {
      Thread.sleep(BLOCK_TIME.toMillis());
    } finally {
      BACKEND.release();
    }
    return request;
  }

  /** The request of a call of {@code kind}. */
  static byte[] request(CallKind kind) {
    return new byte[kind == CallKind.UNARY_1MIB ? CallKind.LARGE : CallKind.SMALL];
  }
}
