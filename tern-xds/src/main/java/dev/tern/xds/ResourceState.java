package dev.tern.xds;

import dev.tern.Status;
import dev.tern.SynchronizationContext;
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
  private final Set<ResourceWatcher<T>> watchers = new LinkedHashSet<>();
  private T value;
  private Object raw;
  private String version;
  private boolean doesNotExist;
  private SynchronizationContext.ScheduledHandle timer;

  ResourceState(XdsResourceType<T> type, String name) {
    this.type = type;
    this.name = name;
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
  void onValue(T newValue, Object newRaw, String newVersion) {
    cancelTimer();
    doesNotExist = false;
    version = newVersion;
    if (newRaw.equals(raw)) {
      return; // the same resource again (another resource of the response changed)
    }
    value = newValue;
    raw = newRaw;
    for (ResourceWatcher<T> w : snapshot()) {
      w.onChanged(newValue);
    }
  }

  /** The timer fired or a full-state response left the resource out. */
  void onDoesNotExist() {
    cancelTimer();
    if (doesNotExist) {
      return;
    }
    doesNotExist = true;
    value = null;
    raw = null;
    version = null;
    for (ResourceWatcher<T> w : snapshot()) {
      w.onResourceDoesNotExist(name);
    }
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
