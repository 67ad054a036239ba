package dev.tern.internal.channel;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.CallOptions;
import dev.tern.ClientStreamTracer;
import dev.tern.Deadline;
import dev.tern.LoadBalancer.PickResult;
import dev.tern.LoadBalancer.PickSubchannelArgs;
import dev.tern.LoadBalancer.SubchannelPicker;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.client.BackendThrottle;
import dev.tern.internal.client.ClientStreamProvider;
import dev.tern.internal.client.DelayedClientStream;
import dev.tern.internal.client.ThrottledClientStream;
import dev.tern.internal.client.TracedClientStream;
import dev.tern.internal.config.MethodConfig;
import dev.tern.internal.retry.RetryingClientStream;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ManagedClientTransport;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where a channel's calls get their streams: the current {@link SubchannelPicker} (a volatile read,
 * then a pick, lock-free and allocation-free when it names a READY subchannel), and the calls that
 * wait for a better picker (none yet, the picked subchannel not READY, or an error for a
 * wait-for-ready call). Each new picker picks again for every waiting call.
 *
 * <p>It is the bottom layer of a call's streams: a call's method config was applied above it (its
 * options carry the config's wait-for-ready; its retry policy is the retry layer's), so it ignores
 * the method config it is handed.
 *
 * <p>When the channel throttles adaptively, a pick of a READY subchannel asks the subchannel's
 * {@link BackendThrottle} first: a refused call gets a stream that fails at once, an admitted one
 * its stream wrapped in a {@link ThrottledClientStream} that counts how it ends. Without throttling
 * that costs one null check.
 *
 * <p>A traced call (one with stream tracer factories in its options) is picked for through a {@link
 * PickLabels}, which keeps the metric labels the picker names (gRFC A78/A89) for the attempt's
 * tracers; when the pick fails such an attempt, its tracers are made just to hear the labels and
 * the status. An untraced call is picked for as itself, with no allocation.
 *
 * <p>A call that reads a picker, finds it wanting and then queues re-checks under the lock that the
 * picker is still current, so a picker published in between cannot miss it.
 *
 * <p>Thread-safe: one private lock guards the waiting calls; picks, streams and listeners are never
 * called with it held.
 */
final class BalancerStreams implements ClientStreamProvider {
  private static final Logger logger = Logger.getLogger(BalancerStreams.class.getName());

  /** What the owner does when calls start or stop waiting. */
  interface Owner {
    /** {@code delta} calls started (positive) or stopped waiting. */
    void callsQueued(int delta);

    /** A call is waiting while the channel is idle: it must start its resolver and balancer. */
    void exitIdle();

    /** The {@code :authority} of {@code callOptions}' call. */
    String authorityFor(CallOptions callOptions);
  }

  private final Owner owner;
  private final Object lock = new Object();

  /** The current picker; null while there is none (before the first one, and in idle mode). */
  private volatile SubchannelPicker picker;

  /** Whether the channel is idle: a call that waits wakes it. */
  private volatile boolean idle = true;

  @GuardedBy("lock")
  private List<PendingStream> waiting = new ArrayList<>();

  @GuardedBy("lock")
  private Status shutdownStatus;

  BalancerStreams(Owner owner) {
    this.owner = owner;
  }

  /**
   * A stream for one attempt of a call, per the current picker, or one that waits for a better
   * picker; never null and never throws. The caller calls its setters and {@code start}.
   *
   * @param args the attempt's method, options and request headers (not modified)
   * @param appExecutor the call's application executor, handed to call credentials
   */
  @Override
  public ClientStream newStream(
      PickSubchannelArgs args, MethodConfig methodConfig, Deadline deadline, Executor appExecutor) {
    return newStream(args, appExecutor);
  }

  /** {@link #newStream(PickSubchannelArgs, MethodConfig, Deadline, Executor)}, for one attempt. */
  ClientStream newStream(PickSubchannelArgs args, Executor appExecutor) {
    SubchannelPicker current = picker;
    while (true) {
      if (current != null) {
        ClientStream stream = pick(current, args, appExecutor);
        if (stream != null) {
          return stream;
        }
      }
      PendingStream queued;
      synchronized (lock) {
        if (shutdownStatus != null) {
          return DelayedClientStream.failed(shutdownStatus);
        }
        SubchannelPicker latest = picker;
        if (latest != current) {
          current = latest; // a new picker arrived since our read: pick with it instead
          continue;
        }
        queued = new PendingStream(this, args, appExecutor);
        waiting.add(queued);
      }
      owner.callsQueued(1);
      if (idle) {
        owner.exitIdle();
      }
      return queued;
    }
  }

  /** Marks the channel idle (a waiting call will wake it) or active. */
  void setIdle(boolean idle) {
    this.idle = idle;
  }

  /**
   * Publishes {@code newPicker} (null: none, as in idle mode) and picks again for the waiting
   * calls. Called from the channel's synchronization context, so pickers are published in order.
   */
  void updatePicker(SubchannelPicker newPicker) {
    List<PendingStream> snapshot;
    synchronized (lock) {
      picker = newPicker;
      if (newPicker == null || waiting.isEmpty()) {
        return;
      }
      snapshot = new ArrayList<>(waiting);
    }
    Map<PendingStream, Boolean> done = new IdentityHashMap<>();
    for (PendingStream stream : snapshot) {
      if (stream.isEnded()) {
        continue; // cancelled meanwhile; its cancellation removes it
      }
      ClientStream real = pick(newPicker, stream.args, stream.appExecutor);
      if (real != null) {
        done.put(stream, Boolean.TRUE);
        if (!stream.setStream(real)) {
          abandon(real);
        }
      }
    }
    if (done.isEmpty()) {
      return;
    }
    int removed = 0;
    synchronized (lock) {
      List<PendingStream> remaining = new ArrayList<>(waiting.size());
      for (PendingStream stream : waiting) {
        if (done.containsKey(stream)) {
          removed++;
        } else {
          remaining.add(stream);
        }
      }
      waiting = remaining;
    }
    owner.callsQueued(-removed);
  }

  /** Fails the waiting calls and every later one with {@code status}. */
  void shutdown(Status status) {
    List<PendingStream> toFail;
    synchronized (lock) {
      if (shutdownStatus != null) {
        return;
      }
      shutdownStatus = status;
      toFail = waiting;
      waiting = new ArrayList<>(0);
    }
    for (PendingStream stream : toFail) {
      stream.fail(status);
    }
    owner.callsQueued(-toFail.size());
  }

  /** Whether calls are waiting (for termination checks and tests). */
  boolean hasWaiting() {
    synchronized (lock) {
      return !waiting.isEmpty();
    }
  }

  /** A stream for the call per {@code picker}, or null if the call must wait for another picker. */
  private ClientStream pick(
      SubchannelPicker picker, PickSubchannelArgs args, Executor appExecutor) {
    // A traced call's picker may name metric labels for the attempt's tracers; an untraced call's
    // picker gets the call itself, where naming them costs nothing.
    PickLabels labels =
        args.getCallOptions().getStreamTracerFactories().isEmpty() ? null : new PickLabels(args);
    PickResult result;
    try {
      result = picker.pickSubchannel(labels == null ? args : labels);
    } catch (RuntimeException | Error e) {
      logger.log(Level.SEVERE, "Load balancer's picker threw", e);
      return DelayedClientStream.failed(
          Status.INTERNAL.withDescription("load balancer's picker threw: " + e).withCause(e));
    }
    if (result == null) {
      return DelayedClientStream.failed(
          Status.INTERNAL.withDescription("load balancer's picker returned null"));
    }
    if (result.getSubchannel() != null) {
      if (!(result.getSubchannel() instanceof SubchannelImpl)) {
        return DelayedClientStream.failed(
            Status.INTERNAL.withDescription(
                "load balancer picked a subchannel its channel did not create: "
                    + result.getSubchannel()));
      }
      SubchannelImpl subchannel = (SubchannelImpl) result.getSubchannel();
      ManagedClientTransport transport = subchannel.readyTransport();
      if (transport == null) {
        return null; // not READY (any more): wait for the balancer's next picker
      }
      BackendThrottle throttle = subchannel.throttle();
      if (throttle != null) {
        return throttledStream(throttle, transport, args, appExecutor, result, labels);
      }
      return newStream(transport, args, appExecutor, result.getStreamTracerFactory(), labels);
    }
    Status status = result.getStatus();
    if (result.isDrop() || (!status.isOk() && !args.getCallOptions().isWaitForReady())) {
      if (labels != null && !labels.isEmpty()) {
        // The picker labeled the attempt it fails (an xDS drop names its cluster): its tracers
        // hear the labels and that it closed, so that its metrics carry them.
        ClientStreamTracer[] tracers = labeledTracers(args, args.getHeaders(), null, labels);
        if (tracers != null) {
          TracedClientStream.pickFailed(tracers, status);
        }
      }
      return DelayedClientStream.failed(status);
    }
    return null;
  }

  /**
   * A stream to a backend under adaptive throttling: one that fails at once if the throttle refuses
   * the call, else the stream, counted by the throttle when it closes.
   */
  private ClientStream throttledStream(
      BackendThrottle throttle,
      ManagedClientTransport transport,
      PickSubchannelArgs args,
      Executor appExecutor,
      PickResult result,
      PickLabels labels) {
    Status refused = throttle.admit();
    if (refused != null) {
      ClientStreamTracer.Factory tracerFactory = result.getStreamTracerFactory();
      if (tracerFactory != null || !args.getCallOptions().getStreamTracerFactories().isEmpty()) {
        // The attempt's tracers hear it refused, so that metrics can count it.
        ClientStreamTracer[] tracers =
            labeledTracers(args, args.getHeaders(), tracerFactory, labels);
        if (tracers != null) {
          TracedClientStream.throttled(tracers, refused);
        }
      }
      return DelayedClientStream.failed(refused);
    }
    return new ThrottledClientStream(
        newStream(transport, args, appExecutor, result.getStreamTracerFactory(), labels), throttle);
  }

  /**
   * The attempt's tracers (the call's, then {@code tracerFactory}'s), told the labels the picker
   * named; null when nothing traces the call.
   */
  private static ClientStreamTracer[] labeledTracers(
      PickSubchannelArgs args,
      Metadata headers,
      ClientStreamTracer.Factory tracerFactory,
      PickLabels labels) {
    ClientStreamTracer[] tracers =
        TracedClientStream.newTracers(streamInfo(args), headers, tracerFactory);
    if (tracers != null && labels != null) {
      labels.tell(tracers);
    }
    return tracers;
  }

  private ClientStream newStream(
      ManagedClientTransport transport,
      PickSubchannelArgs args,
      Executor appExecutor,
      ClientStreamTracer.Factory tracerFactory,
      PickLabels labels) {
    CallOptions callOptions = args.getCallOptions();
    MethodDescriptor<?, ?> method = args.getMethodDescriptor();
    Metadata headers = args.getHeaders();
    if (tracerFactory == null && callOptions.getStreamTracerFactories().isEmpty()) {
      // Untraced: no allocation beyond the stream.
      return CallCredentialsApplier.newStream(
          transport, method, headers, callOptions, owner.authorityFor(callOptions), appExecutor);
    }
    // The tracers come first: their factories may add headers the stream must send.
    ClientStreamTracer[] tracers = labeledTracers(args, headers, tracerFactory, labels);
    ClientStream stream =
        CallCredentialsApplier.newStream(
            transport, method, headers, callOptions, owner.authorityFor(callOptions), appExecutor);
    return tracers == null ? stream : TracedClientStream.trace(stream, tracers, headers);
  }

  /** Tells the tracers of {@code stream}, which will never start, that it closed. */
  private static void abandon(ClientStream stream) {
    ClientStream inner =
        stream instanceof ThrottledClientStream throttled ? throttled.delegate() : stream;
    if (inner instanceof TracedClientStream traced) {
      traced.abandon(Status.CANCELLED.withDescription("call ended before its stream started"));
    }
  }

  private static ClientStreamTracer.StreamInfo streamInfo(PickSubchannelArgs args) {
    if (args instanceof RetryingClientStream.AttemptArgs attempt) {
      return ClientStreamTracer.StreamInfo.newBuilder()
          .setCallOptions(attempt.callOptions())
          .setPreviousAttempts(attempt.previous())
          .setIsTransparentRetry(attempt.transparent())
          .setIsHedging(attempt.hedging())
          .build();
    }
    return new ClientStreamTracer.StreamInfo(args.getCallOptions());
  }

  private void cancelled(PendingStream stream) {
    boolean removed;
    synchronized (lock) {
      removed = waiting.remove(stream);
    }
    if (removed) {
      owner.callsQueued(-1);
    }
  }

  /** A call waiting for a picker that can place it. */
  private static final class PendingStream extends DelayedClientStream {
    final BalancerStreams owner;
    final PickSubchannelArgs args;
    final Executor appExecutor;

    PendingStream(BalancerStreams owner, PickSubchannelArgs args, Executor appExecutor) {
      this.owner = owner;
      this.args = args;
      this.appExecutor = appExecutor;
    }

    @Override
    protected void cancelledWithoutRealStream() {
      owner.cancelled(this);
    }
  }
}
