package dev.tern.reliability;

import java.time.Duration;

/**
 * The calls of the mixed workload, in the order each worker cycles through them, and the deadline
 * each carries. Every kind runs the same way on Tern and on grpc-java (see {@link ChaosService} for
 * what the server does).
 */
public enum CallKind {
  /** A 1 KiB request echoed back. */
  UNARY(Duration.ofSeconds(3)),
  /** A 1 MiB request echoed back. */
  UNARY_1MIB(Duration.ofSeconds(3)),
  /** One 1 KiB request, ten 1 KiB responses. */
  SERVER_STREAM(Duration.ofSeconds(3)),
  /** Ten 1 KiB requests, the last one back. */
  CLIENT_STREAM(Duration.ofSeconds(3)),
  /** Ten 1 KiB requests, each echoed back as it arrives. */
  BIDI_STREAM(Duration.ofSeconds(3)),
  /** A stream the server never ends: the client cancels it after its first response (CANCELLED). */
  CANCEL(Duration.ofSeconds(3)),
  /** A stream the server never ends, under a short deadline (DEADLINE_EXCEEDED). */
  DEADLINE(Duration.ofMillis(300));

  /** Size of the small messages. */
  public static final int SMALL = 1024;

  /** Size of the large messages. */
  public static final int LARGE = 1024 * 1024;

  /** Messages of the streaming kinds. */
  public static final int STREAM_MESSAGES = 10;

  private final Duration deadline;

  CallKind(Duration deadline) {
    this.deadline = deadline;
  }

  /** The deadline a call of this kind carries. */
  public Duration deadline() {
    return deadline;
  }

  /** The status a call of this kind ends with when nothing goes wrong. */
  public String expectedCode() {
    return switch (this) {
      case CANCEL -> "CANCELLED";
      case DEADLINE -> "DEADLINE_EXCEEDED";
      default -> "OK";
    };
  }
}
