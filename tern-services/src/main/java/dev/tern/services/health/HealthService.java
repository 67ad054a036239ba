package dev.tern.services.health;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Status;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthListRequest;
import dev.tern.services.health.v1.HealthListResponse;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The {@code grpc.health.v1.Health} service behind a {@link HealthStatusManager}: the statuses by
 * service name, and the {@link HealthWatcher}s of each name.
 *
 * <p>Thread-safety: one lock guards the statuses, the watchers and the terminal flag. Watchers are
 * told of a change while it is held, so that each sees the changes of a service in the order they
 * were made; a watcher's {@code offer} only takes the watcher's own lock and hands a message to the
 * transport, never blocks, and never takes this lock (the lock order is this one, then a
 * watcher's).
 */
final class HealthService extends HealthTern.HealthImplBase {
  private final int maxListServices;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<String, ServingStatus> statuses = new HashMap<>();

  @GuardedBy("lock")
  private final Map<String, Set<HealthWatcher>> watchers = new HashMap<>();

  @GuardedBy("lock")
  private boolean terminal;

  HealthService(int maxListServices) {
    this.maxListServices = maxListServices;
  }

  void setStatus(String service, ServingStatus status) {
    synchronized (lock) {
      if (!terminal) {
        update(service, status);
      }
    }
  }

  void clearStatus(String service) {
    synchronized (lock) {
      if (!terminal) {
        update(service, null);
      }
    }
  }

  void enterTerminalState() {
    synchronized (lock) {
      if (terminal) {
        return;
      }
      for (String service : Set.copyOf(statuses.keySet())) {
        update(service, ServingStatus.NOT_SERVING);
      }
      terminal = true;
    }
  }

  /** Records {@code status} (null: unknown) and tells the watchers if it changed. */
  @GuardedBy("lock")
  private void update(String service, ServingStatus status) {
    ServingStatus previous =
        status == null ? statuses.remove(service) : statuses.put(service, status);
    if (previous == status) {
      return;
    }
    Set<HealthWatcher> watching = watchers.get(service);
    if (watching != null) {
      ServingStatus seen = status == null ? ServingStatus.SERVICE_UNKNOWN : status;
      for (HealthWatcher watcher : watching) {
        watcher.offer(seen);
      }
    }
  }

  @Override
  public void check(
      HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
    ServingStatus status;
    synchronized (lock) {
      status = statuses.get(request.getService());
    }
    if (status == null) {
      responseObserver.onError(
          Status.NOT_FOUND
              .withDescription("unknown service " + request.getService())
              .asRuntimeException());
      return;
    }
    responseObserver.onNext(HealthCheckResponse.newBuilder().setStatus(status).build());
    responseObserver.onCompleted();
  }

  @Override
  public void list(HealthListRequest request, StreamObserver<HealthListResponse> responseObserver) {
    HealthListResponse.Builder response = HealthListResponse.newBuilder();
    int count;
    synchronized (lock) {
      count = statuses.size();
      if (count <= maxListServices) {
        statuses.forEach(
            (name, status) ->
                response.putStatuses(
                    name, HealthCheckResponse.newBuilder().setStatus(status).build()));
      }
    }
    if (count > maxListServices) {
      responseObserver.onError(
          Status.RESOURCE_EXHAUSTED
              .withDescription(
                  "the server has "
                      + count
                      + " services, more than the "
                      + maxListServices
                      + " List answers for; Check or Watch them one by one")
              .asRuntimeException());
      return;
    }
    responseObserver.onNext(response.build());
    responseObserver.onCompleted();
  }

  @Override
  public void watch(
      HealthCheckRequest request, StreamObserver<HealthCheckResponse> responseObserver) {
    String service = request.getService();
    ServerCallStreamObserver<HealthCheckResponse> call =
        (ServerCallStreamObserver<HealthCheckResponse>) responseObserver;
    HealthWatcher watcher = new HealthWatcher(call);
    call.setOnReadyHandler(watcher::onReady);
    call.setOnCancelHandler(() -> removeWatcher(service, watcher));
    synchronized (lock) {
      watchers.computeIfAbsent(service, name -> new LinkedHashSet<>()).add(watcher);
      ServingStatus status = statuses.get(service);
      watcher.offer(status == null ? ServingStatus.SERVICE_UNKNOWN : status);
    }
  }

  private void removeWatcher(String service, HealthWatcher watcher) {
    synchronized (lock) {
      Set<HealthWatcher> watching = watchers.get(service);
      if (watching != null && watching.remove(watcher) && watching.isEmpty()) {
        watchers.remove(service);
      }
    }
  }

  /** How many Watch calls are open (for tests). */
  int watcherCount() {
    synchronized (lock) {
      return watchers.values().stream().mapToInt(Set::size).sum();
    }
  }
}
