package dev.tern.xds;

import com.google.protobuf.Message;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One subscribed resource of an {@link XdsClient}: its watchers, its last good value, whether it is
 * known not to exist, and its does-not-exist timer. Not thread-safe: used only in the client's
 * synchronization context, which is also where it calls the watchers.
 */
final class ResourceState<T> {
  final XdsResourceType<T> type;
  final String name;

  /** The control planes that serve it (its authority's, A47). */
  final AuthorityServers authority;

  private final Set<ResourceWatcher<T>> watchers = new LinkedHashSet<>();
  private T value;
  private Object raw;
  private String version;
  private boolean doesNotExist;
  private SynchronizationContext.ScheduledHandle timer;
  private long updatedMillis;
  private XdsResourceStatus.Failure failure;

  ResourceState(XdsResourceType<T> type, String name, AuthorityServers authority) {
    this.type = type;
    this.name = name;
    this.authority = authority;
  }

  /** Adds a watcher and tells it what is known already. */
  void addWatcher(ResourceWatcher<T> watcher) {
    if (!watchers.add(watcher)) {
      return;
    }
    if (value != null) {
      watcher.onChanged(value);
    } else if (doesNotExist) {
      watcher.onResourceDoesNotExist(name);
    }
  }

  /** Removes a watcher; true when none is left. */
  boolean removeWatcher(ResourceWatcher<T> watcher) {
    watchers.remove(watcher);
    return watchers.isEmpty();
  }

  T value() {
    return value;
  }

  /** The version of the response that brought the value, or null. */
  String version() {
    return version;
  }

  boolean hasValue() {
    return value != null;
  }

  boolean doesNotExist() {
    return doesNotExist;
  }

  /** Whether the client holds a value or knows it does not exist (A71's "cached"). */
  boolean cached() {
    return value != null || doesNotExist;
  }

  boolean timerPending() {
    return timer != null && timer.isPending();
  }

  /** Starts the does-not-exist timer, unless the resource is known or the timer is running. */
  void startTimer(SynchronizationContext.ScheduledHandle handle) {
    cancelTimer();
    timer = handle;
  }

  boolean needsTimer() {
    return value == null && !doesNotExist && !timerPending();
  }

  void cancelTimer() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  /** A valid value arrived ({@code newRaw} its proto): tells the watchers if it changed. */
  void onValue(T newValue, Object newRaw, String newVersion, long nowMillis) {
    cancelTimer();
    doesNotExist = false;
    version = newVersion;
    failure = null;
    if (newRaw.equals(raw)) {
      return; // the same resource again (another resource of the response changed)
    }
    value = newValue;
    raw = newRaw;
    updatedMillis = nowMillis;
    for (ResourceWatcher<T> w : snapshot()) {
      w.onChanged(newValue);
    }
  }

  /** The timer fired or a full-state response left the resource out. */
  void onDoesNotExist(long nowMillis) {
    cancelTimer();
    if (doesNotExist) {
      return;
    }
    doesNotExist = true;
    updatedMillis = nowMillis;
    value = null;
    raw = null;
    version = null;
    for (ResourceWatcher<T> w : snapshot()) {
      w.onResourceDoesNotExist(name);
    }
  }

  /** A response held this resource invalid: the value stays, the failure is recorded for CSDS. */
  void onNack(XdsResourceStatus.Failure nack) {
    cancelTimer();
    failure = nack;
    onError(
        Status.UNAVAILABLE.withDescription(
            "version " + nack.version() + " rejected (NACK): " + nack.detail()));
  }

  /**
   * What the client holds, as A78's {@code grpc.xds.cache_state} says it: {@code requested}, {@code
   * does_not_exist}, {@code acked}, {@code nacked} or {@code nacked_but_cached}.
   */
  String cacheState() {
    if (failure != null) {
      return value != null ? "nacked_but_cached" : "nacked";
    }
    if (value != null) {
      return "acked";
    }
    return doesNotExist ? "does_not_exist" : "requested";
  }

  /** What the client holds, as CSDS reports it. */
  XdsResourceStatus status() {
    XdsResourceStatus.State state;
    if (failure != null) {
      state = XdsResourceStatus.State.NACKED;
    } else if (value != null) {
      state = XdsResourceStatus.State.ACKED;
    } else if (doesNotExist) {
      state = XdsResourceStatus.State.DOES_NOT_EXIST;
    } else {
      state = XdsResourceStatus.State.REQUESTED;
    }
    return new XdsResourceStatus(
        type.typeUrl(),
        name,
        state,
        version,
        (Message) raw,
        updatedMillis == 0 ? null : Instant.ofEpochMilli(updatedMillis),
        failure);
  }

  /** An error that keeps the value (NACK, broken stream). */
  void onError(Status error) {
    for (ResourceWatcher<T> w : snapshot()) {
      w.onError(error);
    }
  }

  /** A copy, so a watcher may add or remove watchers while being called. */
  private List<ResourceWatcher<T>> snapshot() {
    return new ArrayList<>(watchers);
  }
}
