package dev.tern.services.health;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.stub.ServerCallStreamObserver;

/**
 * One {@code Watch} call: sends each status it is offered while the client takes them; while the
 * call is not ready (the client does not read, HTTP/2 flow control holds the stream) it keeps only
 * the latest status and sends that when the call becomes ready again. A watcher therefore never
 * buffers more than one status, however fast the statuses change and however many watchers there
 * are, and always ends up having sent the latest one.
 *
 * <p>Thread-safe: {@link #offer} (from the thread that changes a status) and {@link #onReady} (from
 * the call's callback thread) serialize on this object's monitor, which is also what keeps the
 * call's sends one at a time. Nothing here calls out to code that could take another lock.
 */
final class HealthWatcher {
  private final ServerCallStreamObserver<HealthCheckResponse> call;

  @GuardedBy("this")
  private ServingStatus pending;

  @GuardedBy("this")
  private ServingStatus sent;

  HealthWatcher(ServerCallStreamObserver<HealthCheckResponse> call) {
    this.call = call;
  }

  /** The service's status is now {@code status}: sends it now or once the call is ready. */
  synchronized void offer(ServingStatus status) {
    pending = status;
    drain();
  }

  /** The call may have become ready: sends the status kept while it was not. */
  synchronized void onReady() {
    drain();
  }

  @GuardedBy("this")
  private void drain() {
    if (pending == null || !call.isReady() || call.isCancelled()) {
      return;
    }
    ServingStatus next = pending;
    pending = null;
    if (next == sent) {
      return; // it changed and changed back while the client was not reading
    }
    sent = next;
    call.onNext(HealthCheckResponse.newBuilder().setStatus(next).build());
  }
}
