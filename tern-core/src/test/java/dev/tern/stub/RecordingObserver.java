package dev.tern.stub;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A stream observer that records what it receives. Thread-safe. */
class RecordingObserver<V> implements StreamObserver<V> {
  final List<V> values = new CopyOnWriteArrayList<>();
  volatile Throwable error;
  volatile boolean completed;
  final CountDownLatch done = new CountDownLatch(1);

  @Override
  public void onNext(V value) {
    values.add(value);
  }

  @Override
  public void onError(Throwable t) {
    error = t;
    done.countDown();
  }

  @Override
  public void onCompleted() {
    completed = true;
    done.countDown();
  }

  boolean awaitDone() throws InterruptedException {
    return done.await(5, TimeUnit.SECONDS);
  }
}
