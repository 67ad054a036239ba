package dev.tern.opentelemetry;

import dev.tern.Status;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What gRFC A72 names in a call's spans: span names, event names and attribute keys, and how a gRPC
 * status becomes a span's status. Stateless.
 */
final class Spans {
  static final String OUTBOUND_MESSAGE = "Outbound message";
  static final String INBOUND_MESSAGE = "Inbound message";
  static final String INBOUND_COMPRESSED_MESSAGE = "Inbound compressed message";
  static final AttributeKey<Long> SEQUENCE_NUMBER = AttributeKey.longKey("sequence-number");
  static final AttributeKey<Long> MESSAGE_SIZE = AttributeKey.longKey("message-size");
  static final AttributeKey<Long> MESSAGE_SIZE_COMPRESSED =
      AttributeKey.longKey("message-size-compressed");
  static final AttributeKey<Long> PREVIOUS_RPC_ATTEMPTS =
      AttributeKey.longKey("previous-rpc-attempts");
  static final AttributeKey<Boolean> TRANSPARENT_RETRY =
      AttributeKey.booleanKey("transparent-retry");

  /** Names by method, so that a call makes no strings; bounded (servers see names clients pick). */
  private static final int MAX_CACHED = 1024;

  private static final Map<String, Names> NAMES = new ConcurrentHashMap<>();

  private Spans() {}

  /**
   * A method's three span names: {@code Sent.pkg.Service.Method}, {@code Attempt.…}, {@code
   * Recv.…}.
   */
  record Names(String call, String attempt, String server) {}

  /** The span names of {@code fullMethodName} (its slash written as a dot). */
  static Names names(String fullMethodName) {
    Names names = NAMES.get(fullMethodName);
    if (names == null) {
      String dotted = fullMethodName.replace('/', '.');
      names = new Names("Sent." + dotted, "Attempt." + dotted, "Recv." + dotted);
      if (NAMES.size() < MAX_CACHED) {
        NAMES.putIfAbsent(fullMethodName, names);
      }
    }
    return names;
  }

  /** Ends {@code span} with {@code status}: OK, or ERROR described as "CODE: description". */
  static void end(Span span, Status status) {
    if (status.isOk()) {
      span.setStatus(StatusCode.OK);
    } else {
      String description = status.getDescription();
      span.setStatus(
          StatusCode.ERROR,
          description == null
              ? status.getCode().name()
              : status.getCode().name() + ": " + description);
    }
    span.end();
  }
}
