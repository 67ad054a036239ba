package dev.tern.inprocess;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.wire.GrpcHeaders;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.ServerTransportListener;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One call on an {@link InProcessTransport}: a client stream and a server stream joined back to
 * back. What one side writes is handed to the other side's listener: messages only as the receiver
 * has {@linkplain dev.tern.spi.Stream#request requested} them (the rest wait in a queue), checked
 * against the receiver's size limit; headers at once; the end of the call once the receiver's queue
 * has drained (a half-close reaches the server, and the server's close reaches the client, after
 * the messages sent before it). Statuses cross without their cause, as over a real wire.
 *
 * <p>Flow control: a side is ready to send ({@code isReady}) while the other side has requested
 * more messages than are queued for it; when the receiver's {@code request} makes room, the sender
 * gets {@code onReady}.
 *
 * <p>Thread-safety: either side's methods may be called from any thread ({@code cancel}
 * concurrently with the rest); {@code lock} guards all the state of the pair. Listener events are
 * enqueued under the lock on the receiving side's {@link CallbackQueue} and run after the lock is
 * released, by the calling thread unless another thread is already running that side's events. The
 * server side's queue is held until the server runtime's {@code streamCreated} has returned, since
 * that is when it installs the stream's listener. This object never takes the transport's lock
 * while holding its own.
 */
final class InProcessStream {
  private static final Logger logger = Logger.getLogger(InProcessStream.class.getName());

  /** Listens to a server stream the runtime failed to accept, so the stream can still end. */
  private static final ServerStreamListener REJECTED_STREAM_LISTENER =
      new ServerStreamListener() {
        @Override
        public void messageRead(InputStream message) {
          MeasuredMessage.closeQuietly(message);
        }

        @Override
        public void onReady() {}

        @Override
        public void halfClosed() {}

        @Override
        public void closed(Status status) {}
      };

  private final InProcessTransport transport;
  private final String fullMethodName;
  private final String authority;
  private final ClientSide clientStream = new ClientSide();
  private final ServerSide serverStream = new ServerSide();
  private final CallbackQueue clientEvents = new CallbackQueue(false);
  private final CallbackQueue serverEvents = new CallbackQueue(true);

  /** The client's request headers until start; then the server's copy, until streamCreated. */
  private Metadata requestHeaders;

  /** Installed by the server runtime in streamCreated; read by server events as they run. */
  private volatile ServerStreamListener serverListener;

  private final Object lock = new Object();

  @GuardedBy("lock")
  private ClientStreamListener clientListener;

  @GuardedBy("lock")
  private boolean registered;

  @GuardedBy("lock")
  private int clientMaxOutbound = Integer.MAX_VALUE;

  @GuardedBy("lock")
  private final OneWayMessages toServer = new OneWayMessages();

  @GuardedBy("lock")
  private final OneWayMessages toClient = new OneWayMessages();

  @GuardedBy("lock")
  private boolean halfClosed;

  @GuardedBy("lock")
  private boolean halfClosedDelivered;

  @GuardedBy("lock")
  private boolean headersSent;

  /** The client listener's {@code closed} is queued (or, before start, decided). */
  @GuardedBy("lock")
  private boolean clientDone;

  /** The server listener's {@code closed} is queued. Always true once clientDone is. */
  @GuardedBy("lock")
  private boolean serverDone;

  @GuardedBy("lock")
  private boolean finishReported;

  @GuardedBy("lock")
  private Status cancelledBeforeStart;

  /** The server's close, waiting for the client's queue to drain. */
  @GuardedBy("lock")
  private Status pendingClientStatus;

  @GuardedBy("lock")
  private Metadata pendingClientTrailers;

  InProcessStream(
      InProcessTransport transport, String fullMethodName, Metadata headers, String authority) {
    this.transport = transport;
    this.fullMethodName = fullMethodName;
    this.requestHeaders = headers;
    this.authority = authority;
  }

  ClientStream clientStream() {
    return clientStream;
  }

  ServerStream serverStream() {
    return serverStream;
  }

  /** Runs on the connection's server event queue: tells the server runtime about the stream. */
  void createOnServer(ServerTransportListener listener) {
    try {
      listener.streamCreated(serverStream, fullMethodName, requestHeaders);
    } catch (RuntimeException e) {
      logger.log(Level.SEVERE, "streamCreated threw for " + fullMethodName, e);
    }
    requestHeaders = null;
    if (serverListener == null) {
      serverListener = REJECTED_STREAM_LISTENER;
      Status status = Status.INTERNAL.withDescription("server did not accept the stream");
      boolean finished;
      synchronized (lock) {
        failLocked(status, status);
        finished = finishedLocked();
      }
      serverEvents.release();
      afterChange(finished);
      return;
    }
    serverEvents.release();
    serverEvents.drain();
  }

  private static Status withoutCause(Status status) {
    return status.getCause() == null ? status : status.withCause(null);
  }

  private static String tooLarge(String what, long size, int max) {
    return what + " larger than max (" + size + " vs. " + max + ")";
  }

  /** Runs the events the last change queued, then tells the transport if the call just ended. */
  private void afterChange(boolean finished) {
    clientEvents.drain();
    serverEvents.drain();
    if (finished) {
      transport.streamFinished(this);
    }
  }

  /** Whether both sides just became done (reported to the transport once). */
  @GuardedBy("lock")
  private boolean finishedLocked() {
    if (registered && clientDone && serverDone && !finishReported) {
      finishReported = true;
      return true;
    }
    return false;
  }

  /** Ends both sides at once (cancel, limits): queued messages are dropped. */
  @GuardedBy("lock")
  private void failLocked(Status clientStatus, Status serverStatus) {
    if (!clientDone) {
      clientDone = true;
      toClient.discardAll();
      pendingClientStatus = null;
      pendingClientTrailers = null;
      ClientStreamListener l = clientListener;
      clientEvents.enqueue(() -> l.closed(clientStatus, RpcProgress.PROCESSED, new Metadata()));
    }
    if (!serverDone) {
      serverDone = true;
      toServer.discardAll();
      serverEvents.enqueue(() -> serverListener.closed(serverStatus));
    }
  }

  private static void requirePositive(int numMessages) {
    if (numMessages <= 0) {
      throw new IllegalArgumentException("numMessages must be positive: " + numMessages);
    }
  }

  @GuardedBy("lock")
  private boolean clientReadyLocked() {
    return !serverDone && !halfClosed && toServer.hasRequests();
  }

  @GuardedBy("lock")
  private boolean serverReadyLocked() {
    return !serverDone && toClient.hasRequests();
  }

  /** Hands the server what it requested; then the half-close once nothing is left queued. */
  @GuardedBy("lock")
  private void deliverToServerLocked() {
    for (MeasuredMessage m; !serverDone && (m = toServer.poll()) != null; ) {
      if (!deliverOneToServerLocked(m)) {
        return;
      }
    }
    if (!serverDone && halfClosed && !halfClosedDelivered && toServer.isEmpty()) {
      halfClosedDelivered = true;
      serverEvents.enqueue(() -> serverListener.halfClosed());
    }
  }

  /** Delivers one requested message, or fails the call if it is too large; false if failed. */
  @GuardedBy("lock")
  private boolean deliverOneToServerLocked(MeasuredMessage m) {
    if (!toServer.fits(m)) {
      m.discard();
      Status status = Status.RESOURCE_EXHAUSTED.withDescription(toServer.tooLargeDescription(m));
      failLocked(status, status);
      return false;
    }
    InputStream stream = m.stream;
    serverEvents.enqueue(() -> serverListener.messageRead(stream));
    return true;
  }

  /** Hands the client what it requested; then the server's close once nothing is left queued. */
  @GuardedBy("lock")
  private void deliverToClientLocked() {
    for (MeasuredMessage m; !clientDone && (m = toClient.poll()) != null; ) {
      if (!deliverOneToClientLocked(m)) {
        return;
      }
    }
    if (!clientDone && pendingClientStatus != null && toClient.isEmpty()) {
      clientDone = true;
      ClientStreamListener l = clientListener;
      Status status = pendingClientStatus;
      Metadata trailers = pendingClientTrailers;
      pendingClientStatus = null;
      pendingClientTrailers = null;
      clientEvents.enqueue(() -> l.closed(status, RpcProgress.PROCESSED, trailers));
    }
  }

  @GuardedBy("lock")
  private boolean deliverOneToClientLocked(MeasuredMessage m) {
    if (!toClient.fits(m)) {
      m.discard();
      Status status = Status.RESOURCE_EXHAUSTED.withDescription(toClient.tooLargeDescription(m));
      failLocked(status, status);
      return false;
    }
    ClientStreamListener l = clientListener;
    InputStream stream = m.stream;
    clientEvents.enqueue(() -> l.messageRead(stream));
    return true;
  }

  /** The client half: driven by the client runtime. */
  private final class ClientSide implements ClientStream {
    @Override
    public void setMaxInboundMessageSize(int bytes) {
      synchronized (lock) {
        toClient.maxInboundSize = bytes;
      }
    }

    @Override
    public void setMaxOutboundMessageSize(int bytes) {
      synchronized (lock) {
        clientMaxOutbound = bytes;
      }
    }

    /** Ignored: in-process messages are never compressed, so there is nothing to decompress. */
    @Override
    public void setDecompressorRegistry(DecompressorRegistry registry) {}

    @Override
    public void start(ClientStreamListener listener) {
      Objects.requireNonNull(listener, "listener");
      Status cancelled;
      synchronized (lock) {
        if (clientListener != null) {
          throw new IllegalStateException("already started");
        }
        clientListener = listener;
        cancelled = cancelledBeforeStart;
        if (cancelled != null) {
          clientEvents.enqueue(
              () -> listener.closed(cancelled, RpcProgress.DROPPED, new Metadata()));
        }
      }
      if (cancelled != null) {
        clientEvents.drain();
        return;
      }
      Metadata serverHeaders = copyForServer(requestHeaders);
      requestHeaders = serverHeaders;
      long size = HeaderListSize.of(serverHeaders);
      int max = transport.serverMaxInboundMetadataSize();
      if (size > max) {
        refuse(
            Status.RESOURCE_EXHAUSTED.withDescription(
                tooLarge("Request header metadata", size, max)),
            RpcProgress.PROCESSED);
        return;
      }
      synchronized (lock) {
        toServer.maxInboundSize = transport.serverMaxInboundMessageSize();
      }
      Status refusal = transport.register(InProcessStream.this);
      if (refusal != null) {
        // In the connection's event order: the channel hears of the shutdown before this close,
        // so that the call's transparent retry does not pick this connection again.
        transport.afterTransportEvents(() -> refuse(refusal, RpcProgress.DROPPED));
        return;
      }
      boolean finished;
      synchronized (lock) {
        registered = true;
        finished = finishedLocked(); // a concurrent cancel may already have ended the call
      }
      transport.drainTransportEvents();
      afterChange(finished);
    }

    /** A copy the server may change freely, with this transport's user-agent. */
    private Metadata copyForServer(Metadata headers) {
      Metadata copy = Metadata.fromSerialized(headers.toSerialized(), headers.headerCount());
      String userAgent = transport.userAgent();
      if (userAgent != null) {
        copy.discardAll(GrpcHeaders.USER_AGENT);
        copy.put(GrpcHeaders.USER_AGENT, userAgent);
      }
      return copy;
    }

    private void refuse(Status status, RpcProgress progress) {
      synchronized (lock) {
        if (clientDone) {
          return; // cancelled meanwhile: that close is already queued
        }
        clientDone = true;
        serverDone = true;
        ClientStreamListener l = clientListener;
        clientEvents.enqueue(() -> l.closed(status, progress, new Metadata()));
      }
      clientEvents.drain();
    }

    @Override
    public void request(int numMessages) {
      requirePositive(numMessages);
      boolean finished;
      synchronized (lock) {
        if (clientDone) {
          return;
        }
        boolean serverWasReady = serverReadyLocked();
        toClient.request(numMessages);
        deliverToClientLocked();
        if (!serverWasReady && serverReadyLocked()) {
          serverEvents.enqueue(() -> serverListener.onReady());
        }
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    @Override
    public void writeMessage(InputStream message) {
      Objects.requireNonNull(message, "message");
      MeasuredMessage m;
      try {
        m = MeasuredMessage.measure(message);
      } catch (IOException e) {
        cancel(Status.INTERNAL.withDescription("Failed to read the outbound message").withCause(e));
        return;
      }
      boolean finished;
      synchronized (lock) {
        if (clientDone || serverDone || halfClosed) {
          m.discard();
          return;
        }
        if (m.size > clientMaxOutbound) {
          m.discard();
          Status status =
              Status.RESOURCE_EXHAUSTED.withDescription(
                  tooLarge("Sent message", m.size, clientMaxOutbound));
          failLocked(status, status);
        } else {
          MeasuredMessage now = toServer.offer(m);
          if (now != null) {
            deliverOneToServerLocked(now);
          }
        }
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    /** Nothing to do: messages reach the server as they are written. */
    @Override
    public void flush() {}

    @Override
    public boolean isReady() {
      synchronized (lock) {
        return clientReadyLocked();
      }
    }

    /** Ignored: in-process messages are never compressed. */
    @Override
    public void setMessageCompression(boolean enable) {}

    /** Ignored: in-process messages are never compressed. */
    @Override
    public void setCompressor(Compressor compressor) {}

    @Override
    public void halfClose() {
      synchronized (lock) {
        if (clientDone || halfClosed) {
          return;
        }
        halfClosed = true;
        deliverToServerLocked();
      }
      afterChange(false);
    }

    /** Ends the call: this listener gets {@code reason} at once, the server CANCELLED. */
    @Override
    public void cancel(Status reason) {
      Objects.requireNonNull(reason, "reason");
      boolean finished;
      synchronized (lock) {
        if (clientDone) {
          return;
        }
        if (clientListener == null) {
          clientDone = true;
          serverDone = true;
          cancelledBeforeStart = reason;
          return;
        }
        failLocked(reason, Status.CANCELLED.withDescription("client cancelled"));
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    @Override
    public Attributes getAttributes() {
      return transport.getAttributes();
    }

    @Override
    public String toString() {
      return "InProcessClientStream{" + fullMethodName + "}";
    }
  }

  /** The server half: driven by the server runtime. */
  private final class ServerSide implements ServerStream {
    @Override
    public void setListener(ServerStreamListener listener) {
      serverListener = Objects.requireNonNull(listener, "listener");
    }

    /** Ignored: in-process messages are never compressed. */
    @Override
    public void setDecompressor(Decompressor decompressor) {}

    @Override
    public void setMaxInboundMessageSize(int bytes) {
      synchronized (lock) {
        toServer.maxInboundSize = bytes;
      }
    }

    @Override
    public void request(int numMessages) {
      requirePositive(numMessages);
      boolean finished;
      synchronized (lock) {
        if (serverDone) {
          return;
        }
        boolean clientWasReady = clientReadyLocked();
        toServer.request(numMessages);
        deliverToServerLocked();
        if (!clientWasReady && clientReadyLocked()) {
          ClientStreamListener l = clientListener;
          clientEvents.enqueue(l::onReady);
        }
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    @Override
    public void writeHeaders(Metadata headers, boolean flush) {
      Objects.requireNonNull(headers, "headers");
      long size = HeaderListSize.of(headers);
      int max = transport.clientMaxInboundMetadataSize();
      boolean finished;
      synchronized (lock) {
        if (serverDone) {
          return;
        }
        if (headersSent) {
          throw new IllegalStateException("headers already sent");
        }
        headersSent = true;
        if (size > max) {
          Status status =
              Status.RESOURCE_EXHAUSTED.withDescription(
                  tooLarge("Response header metadata", size, max));
          failLocked(status, status);
        } else {
          ClientStreamListener l = clientListener;
          clientEvents.enqueue(() -> l.headersRead(headers));
        }
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    @Override
    public void writeMessage(InputStream message) {
      Objects.requireNonNull(message, "message");
      MeasuredMessage m;
      try {
        m = MeasuredMessage.measure(message);
      } catch (IOException e) {
        cancel(Status.INTERNAL.withDescription("Failed to read the outbound message").withCause(e));
        return;
      }
      boolean finished;
      synchronized (lock) {
        if (serverDone) {
          m.discard();
          return;
        }
        if (!headersSent) {
          // The client must see headers before a message; send empty ones as HTTP/2 would need.
          headersSent = true;
          ClientStreamListener l = clientListener;
          clientEvents.enqueue(() -> l.headersRead(new Metadata()));
        }
        MeasuredMessage now = toClient.offer(m);
        if (now != null) {
          deliverOneToClientLocked(now);
        }
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    /** Nothing to do: messages reach the client as they are written. */
    @Override
    public void flush() {}

    @Override
    public boolean isReady() {
      synchronized (lock) {
        return serverReadyLocked();
      }
    }

    /** Ignored: in-process messages are never compressed. */
    @Override
    public void setMessageCompression(boolean enable) {}

    /** Ignored: in-process messages are never compressed. */
    @Override
    public void setCompressor(Compressor compressor) {}

    /**
     * Ends the call. This listener gets {@code closed(OK)} at once; the client gets {@code status}
     * (without its cause) and {@code trailers} after the messages already sent to it.
     */
    @Override
    public void close(Status status, Metadata trailers) {
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(trailers, "trailers");
      long size = HeaderListSize.of(trailers);
      int max = transport.clientMaxInboundMetadataSize();
      boolean finished;
      synchronized (lock) {
        if (serverDone) {
          return;
        }
        serverDone = true;
        toServer.discardAll();
        serverEvents.enqueue(() -> serverListener.closed(Status.OK));
        if (size > max) {
          pendingClientStatus =
              Status.RESOURCE_EXHAUSTED.withDescription(
                  tooLarge("Response trailer metadata", size, max));
          pendingClientTrailers = new Metadata();
        } else {
          pendingClientStatus = withoutCause(status);
          pendingClientTrailers = trailers;
        }
        deliverToClientLocked();
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    /**
     * Ends the call abnormally: the client gets {@code status} (without its cause) at once, even if
     * it was still reading what the server sent before closing.
     */
    @Override
    public void cancel(Status status) {
      Objects.requireNonNull(status, "status");
      boolean finished;
      synchronized (lock) {
        if (clientDone && serverDone) {
          return;
        }
        failLocked(withoutCause(status), status);
        finished = finishedLocked();
      }
      afterChange(finished);
    }

    @Override
    public Attributes getAttributes() {
      return transport.serverAttributes();
    }

    @Override
    public String getAuthority() {
      return authority;
    }

    @Override
    public String toString() {
      return "InProcessServerStream{" + fullMethodName + "}";
    }
  }
}
