package dev.tern.opentelemetry;

import dev.tern.Status;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;

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

  private Spans() {}

  /** {@code prefix} + the method with its slash as a dot: {@code Sent.pkg.Service.Method}. */
  static String name(String prefix, String fullMethodName) {
    return prefix + fullMethodName.replace('/', '.');
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
