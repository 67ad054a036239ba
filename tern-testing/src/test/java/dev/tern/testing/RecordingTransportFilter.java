package dev.tern.testing;

import dev.tern.Attributes;
import dev.tern.ServerTransportFilter;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A server transport filter that records what it sees and adds {@link #FILTER_KEY} to the
 * attributes, so a test can check that calls see what filters return. Thread-safe.
 */
public final class RecordingTransportFilter extends ServerTransportFilter {
  /** Added by {@link #transportReady} with value {@link #FILTER_VALUE}. */
  public static final Attributes.Key<String> FILTER_KEY =
      Attributes.Key.create("recording-filter-added");

  /** The value of {@link #FILTER_KEY}. */
  public static final String FILTER_VALUE = "added by the filter";

  private final BlockingQueue<Attributes> ready = new LinkedBlockingQueue<>();
  private final BlockingQueue<Attributes> terminated = new LinkedBlockingQueue<>();

  @Override
  public Attributes transportReady(Attributes transportAttrs) {
    ready.add(transportAttrs);
    return transportAttrs.toBuilder().set(FILTER_KEY, FILTER_VALUE).build();
  }

  @Override
  public void transportTerminated(Attributes transportAttrs) {
    terminated.add(transportAttrs);
  }

  /** Waits for the next {@code transportReady} and returns the attributes it was given. */
  public Attributes awaitReady() {
    return Await.poll(ready, "a server transport filter to see a ready transport");
  }

  /** Waits for the next {@code transportTerminated} and returns the attributes it was given. */
  public Attributes awaitTerminated() {
    return Await.poll(terminated, "a server transport filter to see a terminated transport");
  }
}
