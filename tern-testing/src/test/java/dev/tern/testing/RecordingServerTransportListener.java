package dev.tern.testing;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Plays the server runtime for one server transport: gives each new stream a {@link
 * RecordingServerStreamListener} and its inbound message limit before returning from {@code
 * streamCreated} (as the runtime must), and records the transport's events. {@code transportReady}
 * returns the given attributes plus {@link #ADDED_KEY}, so a test can check that streams show what
 * the runtime returned. Reports contract breaches (streams before ready, events after terminated)
 * in {@link #violations()}; {@link #events()} lists every callback in order.
 *
 * <p>Two settings make it play a misbehaving or rejecting runtime instead, to test how a transport
 * copes: {@link #rejectWhenReady} and {@link #leaveStreamsWithoutListener}. Thread-safe.
 */
public final class RecordingServerTransportListener implements ServerTransportListener {
  /** Added by {@link #transportReady} to the attributes it returns, with value {@link #ADDED}. */
  public static final Attributes.Key<String> ADDED_KEY =
      Attributes.Key.create("recording-listener-added");

  /** The value of {@link #ADDED_KEY}. */
  public static final String ADDED = "added by transportReady";

  /** One {@code streamCreated} call, with the listener this class set on the stream. */
  public record StreamCreated(
      ServerStream stream,
      String fullMethodName,
      Metadata headers,
      RecordingServerStreamListener listener) {}

  private final ServerTransport transport;
  private volatile int maxInboundMessageSize;
  private final CompletableFuture<Attributes> readyAttributes = new CompletableFuture<>();
  private volatile Attributes returnedAttributes;
  private final BlockingQueue<StreamCreated> streams = new LinkedBlockingQueue<>();
  private final List<RecordingServerStreamListener> streamListeners =
      Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private volatile Status rejectWith;
  private volatile boolean setStreamListeners = true;

  /**
   * @param maxInboundMessageSize set on each stream, as the runtime does
   */
  public RecordingServerTransportListener(ServerTransport transport, int maxInboundMessageSize) {
    this.transport = transport;
    this.maxInboundMessageSize = maxInboundMessageSize;
  }

  @Override
  public void streamCreated(ServerStream stream, String fullMethodName, Metadata headers) {
    if (!readyAttributes.isDone()) {
      violations.add("streamCreated(" + fullMethodName + ") before transportReady");
    }
    if (terminated.getCount() == 0) {
      violations.add("streamCreated(" + fullMethodName + ") after transportTerminated");
    }
    events.add("streamCreated");
    if (!setStreamListeners) {
      return;
    }
    RecordingServerStreamListener listener = new RecordingServerStreamListener();
    stream.setMaxInboundMessageSize(maxInboundMessageSize);
    stream.setListener(listener);
    streamListeners.add(listener);
    streams.add(new StreamCreated(stream, fullMethodName, headers, listener));
  }

  @Override
  public Attributes transportReady(Attributes transportAttrs) {
    if (transportAttrs == null) {
      violations.add("transportReady with null attributes");
      transportAttrs = Attributes.EMPTY;
    }
    Attributes returned = transportAttrs.toBuilder().set(ADDED_KEY, ADDED).build();
    returnedAttributes = returned;
    if (!readyAttributes.complete(transportAttrs)) {
      violations.add("transportReady called twice");
    }
    events.add("ready");
    Status reject = rejectWith;
    if (reject != null) {
      transport.shutdownNow(reject);
    }
    return returned;
  }

  @Override
  public void transportTerminated() {
    if (terminated.getCount() == 0) {
      violations.add("transportTerminated called twice");
    }
    events.add("terminated");
    terminated.countDown();
  }

  /** The inbound message limit given to streams created from now on. */
  public void setMaxInboundMessageSize(int bytes) {
    this.maxInboundMessageSize = bytes;
  }

  /**
   * Makes {@code transportReady} shut the transport down at once with {@code status}, as a
   * transport filter that rejects the connection would. Set it before the transport is ready: from
   * {@link RecordingServerListener#configureTransports}.
   */
  public void rejectWhenReady(Status status) {
    this.rejectWith = status;
  }

  /**
   * Makes {@code streamCreated} return without setting a listener on the stream, as a broken
   * runtime would (the SPI requires one), so a test can check how the transport fails such a
   * stream. The stream is counted in {@link #events()} but not offered to {@link #awaitStream()}.
   */
  public void leaveStreamsWithoutListener() {
    this.setStreamListeners = false;
  }

  /** The server transport this listener belongs to. */
  public ServerTransport transport() {
    return transport;
  }

  /** Waits for {@code transportReady} and returns the attributes the transport passed. */
  public Attributes awaitReady() {
    return Await.get(readyAttributes, "the server transport to be ready");
  }

  /** What {@code transportReady} returned (null before it was called). */
  public Attributes returnedAttributes() {
    return returnedAttributes;
  }

  /** Waits for the next {@code streamCreated}. */
  public StreamCreated awaitStream() {
    return Await.poll(streams, "a stream to reach the server");
  }

  /** How many created streams the test has not taken with {@link #awaitStream()}. */
  public int streamsNotTaken() {
    return streams.size();
  }

  /** Waits for {@code transportTerminated}. */
  public void awaitTerminated() {
    Await.await(terminated, "the server transport to terminate");
  }

  /** Whether {@code transportTerminated} was called. */
  public boolean isTerminated() {
    return terminated.getCount() == 0;
  }

  /**
   * The callbacks so far, in the order they came: {@code "ready"}, {@code "streamCreated"}, {@code
   * "terminated"}.
   */
  public List<String> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** Contract breaches of the transport and of every stream it created. */
  public List<String> violations() {
    List<String> all = new ArrayList<>(violations);
    synchronized (streamListeners) {
      for (RecordingServerStreamListener listener : streamListeners) {
        for (String v : listener.violations()) {
          all.add("server stream: " + v);
        }
      }
    }
    return all;
  }
}
