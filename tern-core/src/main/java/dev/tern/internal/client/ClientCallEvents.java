package dev.tern.internal.client;

import dev.tern.ClientCall;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.SerializingExecutor;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.HandOff;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The listener side of a {@link ClientCallImpl}: receives its stream's events and its context's
 * cancellation, and delivers them to the application's {@link ClientCall.Listener}.
 *
 * <p>Callbacks go through a {@link SerializingExecutor} over the call's executor, handed over by
 * the stream's transport ({@link dev.tern.spi.ClientStream#handOff}: the Netty transport's after
 * its batch of reads), or run inline on the transport thread (direct executor). If the executor
 * refuses them, the call is cancelled and the refusal logged; its listener hears nothing more.
 * Responses are parsed on that same thread. A callback that throws, or a response that does not
 * parse, cancels the call; {@code onClose} then reports that failure instead of whatever the stream
 * says, and it is delivered exactly once. Its {@link #run()} delivers {@code onReady}, so that
 * event needs no task object; once the call is half-closed, {@code onReady} is dropped (the call
 * can send nothing more).
 *
 * <p>Thread-safety: the stream calls the {@code ClientStreamListener} methods one at a time; the
 * listener-side state ({@code localCloseStatus}, {@code closeDelivered}) is confined to the
 * serializing executor (or to the transport thread when inline). {@link #init} runs on the
 * application thread before the stream exists, and the stream's start publishes it. The object's
 * monitor is also the call's retry lock (see {@link ClientCallImpl}).
 */
final class ClientCallEvents<RespT>
    implements ClientStreamListener,
        Runnable,
        Context.CancellationListener,
        ReadAhead.Sink,
        SerializingExecutor.RejectionHandler {
  private static final Logger logger = Logger.getLogger(ClientCallEvents.class.getName());

  private static final int HEADERS = 0;
  private static final int MESSAGE = 1;
  private static final int CLOSE = 2;

  private final ClientCallImpl<?, RespT> call;
  private final MethodDescriptor<?, RespT> method;
  private final boolean inline;
  private ClientCall.Listener<RespT> listener;
  private SerializingExecutor serializer;

  /**
   * The close that waits behind messages read ahead (see {@link ClientCallImpl#readAhead()}):
   * written by the transport thread before it tells the read-ahead, read by whichever thread the
   * read-ahead then delivers the end on (its lock orders the two).
   */
  private Status endStatus;

  private Metadata endTrailers;

  /** Whether a refusal of the call's executor was logged: once per call. */
  private volatile boolean refusalLogged;

  // Confined to the serializer (or the transport thread when inline).
  private Status localCloseStatus;
  private boolean closeDelivered;

  /**
   * @param inline whether callbacks run on the thread that reports the event
   */
  ClientCallEvents(
      ClientCallImpl<?, RespT> call, MethodDescriptor<?, RespT> method, boolean inline) {
    this.call = call;
    this.method = method;
    this.inline = inline;
  }

  /** Sets the application's listener and, unless inline, the executor its callbacks run on. */
  void init(ClientCall.Listener<RespT> listener, Executor callExecutor) {
    this.listener = listener;
    if (!inline) {
      serializer = new SerializingExecutor(callExecutor, HandOff.DIRECT, this);
    }
  }

  /**
   * The call's stream (or a transparent retry's) is about to start: its transport's {@code handOff}
   * takes the callbacks to the call's executor (after the transport's batch of reads, for the Netty
   * transport). Application thread, before the stream's start publishes it.
   */
  void streamStarting(HandOff handOff) {
    if (!inline) {
      serializer.setHandOff(handOff);
    }
  }

  /**
   * The call's executor refused the callbacks in {@code dropped} (shut down, or a bounded queue
   * full): none of them will run. The call is cancelled, so that its stream and its messages'
   * buffers are released, and the refusal is logged. If the executor takes a later callback (a
   * queue that had room again), the listener hears the call's close, CANCELLED with the refusal; if
   * the close itself was refused, the listener cannot be told, and the call only counts as ended in
   * the channel's figures. Called on the thread the refusal reached.
   */
  @Override
  public void rejected(RejectedExecutionException e, List<Runnable> dropped) {
    Status refused =
        Status.CANCELLED
            .withDescription("The call's executor refused its callbacks: " + e)
            .withCause(e);
    for (Runnable task : dropped) {
      if (task instanceof ClientCallEvents<?>.Delivery delivery) {
        if (delivery.kind == MESSAGE) {
          closeQuietly((InputStream) delivery.first);
        } else if (delivery.kind == CLOSE) {
          call.callEnded(refused);
        }
      }
    }
    if (!refusalLogged) { // the cancel's own close is refused too: one line per call
      refusalLogged = true;
      logger.log(
          Level.WARNING,
          "The executor of a call to " + method.getFullMethodName() + " refused its callbacks",
          e);
    }
    call.cancelStream(refused);
  }

  /** Closes the call with {@code status} although it never had a stream. */
  void closeWithoutStream(Status status) {
    dispatch(CLOSE, status, new Metadata());
  }

  @Override
  public void headersRead(Metadata headers) {
    call.responseArrived();
    dispatch(HEADERS, headers, null);
  }

  @Override
  public void messageRead(InputStream message) {
    call.responseArrived();
    ReadAhead readAhead = call.readAhead();
    if (readAhead != null) {
      readAhead.messageRead(message);
    } else {
      dispatch(MESSAGE, message, null);
    }
  }

  /** A message the read-ahead hands on against the application's request. */
  @Override
  public void deliver(InputStream message) {
    dispatch(MESSAGE, message, null);
  }

  /** The close, once the messages read ahead of it are delivered (or dropped by a cancel). */
  @Override
  public void end() {
    dispatch(CLOSE, endStatus, endTrailers);
  }

  @Override
  public void onReady() {
    if (call.isHalfClosed()) {
      return; // the call can send nothing more: the callback would cost the executor a task only
    }
    if (inline) {
      deliverReady();
    } else {
      serializer.execute(this);
    }
  }

  @Override
  public void run() {
    deliverReady();
  }

  @Override
  public void closed(Status status, RpcProgress progress, Metadata trailers) {
    if (call.retryOrFinish(progress)) {
      return;
    }
    Status closeStatus = call.closeStatus(status);
    ReadAhead readAhead = call.readAhead();
    if (readAhead != null) {
      endStatus = closeStatus;
      endTrailers = trailers;
      readAhead.end();
    } else {
      dispatch(CLOSE, closeStatus, trailers);
    }
  }

  @Override
  public void cancelled(Context context) {
    call.cancelStream(Contexts.statusFromCancelled(context));
  }

  private void dispatch(int kind, Object first, Object second) {
    if (inline) {
      deliver(kind, first, second);
    } else {
      serializer.execute(new Delivery(kind, first, second));
    }
  }

  private void deliver(int kind, Object first, Object second) {
    switch (kind) {
      case HEADERS:
        deliverHeaders((Metadata) first);
        break;
      case MESSAGE:
        deliverMessage((InputStream) first);
        break;
      default:
        deliverClose((Status) first, (Metadata) second);
        break;
    }
  }

  private void deliverHeaders(Metadata headers) {
    if (closeDelivered || localCloseStatus != null) {
      return;
    }
    try {
      listener.onHeaders(headers);
    } catch (Throwable t) {
      failLocally("onHeaders", t);
    }
  }

  private void deliverMessage(InputStream serialized) {
    if (closeDelivered || localCloseStatus != null) {
      closeQuietly(serialized);
      return;
    }
    RespT message;
    try {
      message = method.parseResponse(serialized);
    } catch (Throwable t) {
      failLocally(Status.INTERNAL.withDescription("Failed to read message").withCause(t));
      return;
    } finally {
      closeQuietly(serialized);
    }
    try {
      listener.onMessage(message);
    } catch (Throwable t) {
      failLocally("onMessage", t);
    }
  }

  private void deliverReady() {
    if (closeDelivered || localCloseStatus != null || call.isHalfClosed()) {
      return;
    }
    try {
      listener.onReady();
    } catch (Throwable t) {
      failLocally("onReady", t);
    }
  }

  private void deliverClose(Status status, Metadata trailers) {
    if (closeDelivered) {
      return;
    }
    closeDelivered = true;
    if (localCloseStatus != null) {
      status = localCloseStatus;
      trailers = new Metadata();
    }
    call.callEnded(status);
    try {
      listener.onClose(status, trailers);
    } catch (Throwable t) {
      logger.log(Level.WARNING, "ClientCall.Listener.onClose threw", t);
    }
  }

  private void failLocally(String callback, Throwable t) {
    failLocally(
        Status.CANCELLED
            .withDescription("ClientCall.Listener." + callback + " threw " + t)
            .withCause(t));
  }

  /** Cancels the call for a reason found here; {@code onClose} will report {@code status}. */
  private void failLocally(Status status) {
    if (localCloseStatus == null) {
      localCloseStatus = status;
    }
    call.cancelStream(status);
  }

  private static void closeQuietly(InputStream message) {
    try {
      message.close();
    } catch (IOException | RuntimeException e) {
      logger.log(Level.FINE, "Failed to close a response message", e);
    }
  }

  /** One listener callback to run on the serializer. */
  private final class Delivery implements Runnable {
    private final int kind;
    private final Object first;
    private final Object second;

    Delivery(int kind, Object first, Object second) {
      this.kind = kind;
      this.first = first;
      this.second = second;
    }

    @Override
    public void run() {
      deliver(kind, first, second);
    }
  }
}
