package dev.tern.stub;

import dev.tern.Status;

/**
 * The statuses the stubs generate when a peer breaks a method's cardinality: gRPC's status-code
 * table (doc/statuscodes.md in the gRPC repository) makes both the request and the response
 * cardinality violation {@code UNIMPLEMENTED}, the first generated at the server, the second at the
 * client. The response statuses are shared constants; the request ones name the method, for the
 * client to see which it called wrongly.
 *
 * <p>Immutable; thread-safe.
 */
final class StubStatuses {
  private StubStatuses() {}

  /** A unary or client-streaming call that closed OK without a response. */
  static final Status NO_RESPONSE =
      Status.UNIMPLEMENTED.withDescription(
          "Server sent no response for a unary or client-streaming call, which needs exactly one");

  /** A unary or client-streaming call that received a second response (it is then cancelled). */
  static final Status TOO_MANY_RESPONSES =
      Status.UNIMPLEMENTED.withDescription(
          "Server sent more than one response for a unary or client-streaming call, which needs"
              + " exactly one");

  /** The client half-closed a unary or server-streaming call without sending its request. */
  static Status noRequest(String fullMethodName) {
    return Status.UNIMPLEMENTED.withDescription(
        "Half-closed without a request: " + fullMethodName + " takes exactly one");
  }

  /** The client sent a second request on a unary or server-streaming call. */
  static Status tooManyRequests(String fullMethodName) {
    return Status.UNIMPLEMENTED.withDescription(
        "Too many requests: " + fullMethodName + " takes exactly one");
  }

  /** A unary or client-streaming method completed without sending its response. */
  static Status completedWithoutResponse(String fullMethodName) {
    return Status.UNIMPLEMENTED.withDescription(
        "Completed without a response: " + fullMethodName + " must send exactly one");
  }
}
