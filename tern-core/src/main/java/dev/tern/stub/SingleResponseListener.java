package dev.tern.stub;

import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;

/**
 * Collects the single response of a unary call and reports the outcome once the call closes: the
 * value, or a status. A call that closes OK with no response, or that receives a second one (the
 * call is cancelled then), fails with {@code UNIMPLEMENTED}: gRPC's status-code table (its
 * doc/statuscodes.md) makes a response cardinality violation {@code UNIMPLEMENTED}, generated at
 * the client.
 *
 * <p>Thread-safety: the call delivers callbacks one at a time, so the fields need no lock;
 * subclasses publish the outcome as they see fit.
 */
abstract class SingleResponseListener<RespT> extends ClientCall.Listener<RespT> {
  private final ClientCall<?, RespT> call;
  private RespT value;
  private boolean received;

  /** Why this listener cancelled the call; reported instead of the CANCELLED that follows. */
  private Status failure;

  SingleResponseListener(ClientCall<?, RespT> call) {
    this.call = call;
  }

  /** The call succeeded with {@code value}. */
  abstract void onSuccess(RespT value);

  /** The call failed with {@code status}; {@code trailers} are the server's (never null). */
  abstract void onFailure(Status status, Metadata trailers);

  @Override
  public final void onMessage(RespT message) {
    if (failure != null) {
      return;
    }
    if (received) {
      failure = StubStatuses.TOO_MANY_RESPONSES;
      call.cancel(failure.getDescription(), null);
      return;
    }
    value = message;
    received = true;
  }

  @Override
  public final void onClose(Status status, Metadata trailers) {
    if (failure != null) {
      onFailure(failure, trailers);
    } else if (!status.isOk()) {
      onFailure(status, trailers);
    } else if (!received) {
      onFailure(StubStatuses.NO_RESPONSE, trailers);
    } else {
      RespT result = value;
      value = null;
      onSuccess(result);
    }
  }
}
