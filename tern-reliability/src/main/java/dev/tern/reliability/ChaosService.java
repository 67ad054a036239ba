package dev.tern.reliability;

/**
 * The service every server of the harness serves, on Tern and on grpc-java alike, with byte-array
 * messages: {@value #UNARY} echoes its request; {@value #SERVER_STREAM} answers its request {@link
 * CallKind#STREAM_MESSAGES} times; {@value #CLIENT_STREAM} answers the last request once the client
 * is done; {@value #BIDI} echoes each request as it arrives; {@value #HOLD} answers its request
 * once and then never ends the call (the client cancels it or its deadline passes).
 */
public final class ChaosService {
  /** The service's full name, also the name client-side health checking asks about. */
  public static final String SERVICE = "tern.chaos.Chaos";

  public static final String UNARY = "Unary";
  public static final String SERVER_STREAM = "ServerStream";
  public static final String CLIENT_STREAM = "ClientStream";
  public static final String BIDI = "Bidi";
  public static final String HOLD = "Hold";

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

  /** The request of a call of {@code kind}. */
  static byte[] request(CallKind kind) {
    return new byte[kind == CallKind.UNARY_1MIB ? CallKind.LARGE : CallKind.SMALL];
  }
}
