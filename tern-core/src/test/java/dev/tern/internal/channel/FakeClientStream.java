package dev.tern.internal.channel;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Compressor;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ClientStreamListener.RpcProgress;
import dev.tern.spi.HandOff;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A client stream that records what the runtime does to it and lets the test play the server:
 * {@link #deliverHeaders}, {@link #deliverMessage}, {@link #serverClose}. {@code cancel} closes the
 * stream at once with the given status, as in-process does. Records every operation in {@link #ops}
 * (e.g. {@code "start"}, {@code "request 1"}, {@code "message hi"}, {@code "halfClose"}).
 *
 * <p>Thread-safe (monitor); listener events are delivered without it.
 */
public final class FakeClientStream implements ClientStream {
  public final FakeClientTransport transport;
  public final MethodDescriptor<?, ?> method;
  public final Metadata headers;
  public final CallOptions callOptions;
  public final List<String> ops = new ArrayList<>();
  public final List<String> messages = new ArrayList<>();
  private ClientStreamListener listener;
  private boolean counted;
  private boolean closed;
  private boolean ready = true;
  private int requested;
  private Integer maxInbound;
  private Integer maxOutbound;
  private DecompressorRegistry decompressorRegistry;
  private Compressor compressor;
  private Status cancelStatus;
  private boolean deferCancel;
  private Thread startThread;

  public FakeClientStream(
      FakeClientTransport transport,
      MethodDescriptor<?, ?> method,
      Metadata headers,
      CallOptions callOptions) {
    this.transport = transport;
    this.method = method;
    this.headers = headers;
    this.callOptions = callOptions;
  }

  @Override
  public synchronized void setMaxInboundMessageSize(int bytes) {
    checkNotStarted();
    maxInbound = bytes;
  }

  @Override
  public synchronized void setMaxOutboundMessageSize(int bytes) {
    checkNotStarted();
    maxOutbound = bytes;
  }

  @Override
  public synchronized void setDecompressorRegistry(DecompressorRegistry registry) {
    checkNotStarted();
    decompressorRegistry = registry;
  }

  @Override
  public synchronized void setCompressor(Compressor compressor) {
    checkNotStarted();
    this.compressor = compressor;
  }

  private void checkNotStarted() {
    if (listener != null) {
      throw new AssertionError("setter after start");
    }
  }

  @Override
  public HandOff handOff() {
    return transport.streamHandOff;
  }

  @Override
  public void start(ClientStreamListener listener) {
    synchronized (this) {
      if (this.listener != null) {
        throw new AssertionError("started twice");
      }
      this.listener = listener;
      startThread = Thread.currentThread();
      ops.add("start");
    }
    if (!transport.streamStarted()) {
      synchronized (this) {
        closed = true;
      }
      listener.closed(
          Status.UNAVAILABLE.withDescription("transport shut down"),
          RpcProgress.DROPPED,
          new Metadata());
      return;
    }
    synchronized (this) {
      counted = true;
    }
  }

  @Override
  public synchronized void request(int numMessages) {
    requireStarted();
    requested += numMessages;
    ops.add("request " + numMessages);
  }

  @Override
  public void writeMessage(InputStream message) {
    String text;
    try (InputStream in = message) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    synchronized (this) {
      requireStarted();
      messages.add(text);
      ops.add("message " + text);
    }
  }

  @Override
  public synchronized void flush() {
    requireStarted();
    ops.add("flush");
  }

  @Override
  public synchronized boolean isReady() {
    return listener != null && !closed && ready;
  }

  @Override
  public synchronized void setMessageCompression(boolean enable) {
    requireStarted();
    ops.add("compression " + enable);
  }

  @Override
  public synchronized void halfClose() {
    requireStarted();
    ops.add("halfClose");
  }

  @Override
  public void cancel(Status reason) {
    synchronized (this) {
      ops.add("cancel " + reason.getCode());
      if (cancelStatus == null) {
        cancelStatus = reason;
      }
      if (deferCancel) {
        return;
      }
    }
    finish(reason, RpcProgress.PROCESSED, new Metadata());
  }

  /**
   * From now on {@code cancel} only records the request and leaves the stream open, as a network
   * transport does while the reset waits for its event loop; the test then closes it.
   */
  public synchronized void deferCancel() {
    deferCancel = true;
  }

  @Override
  public Attributes getAttributes() {
    return transport.getAttributes();
  }

  private void requireStarted() {
    if (listener == null) {
      throw new AssertionError("stream used before start");
    }
  }

  // ---- the test plays the server ----

  public void deliverHeaders(Metadata responseHeaders) {
    listener().headersRead(responseHeaders);
  }

  public void deliverMessage(String text) {
    listener().messageRead(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  public void deliverMessage(InputStream message) {
    listener().messageRead(message);
  }

  public void setReady(boolean ready) {
    synchronized (this) {
      this.ready = ready;
    }
    if (ready) {
      listener().onReady();
    }
  }

  /** The server ends the call. */
  public void serverClose(Status status, Metadata trailers) {
    finish(status, RpcProgress.PROCESSED, trailers);
  }

  public void serverClose(Status status) {
    serverClose(status, new Metadata());
  }

  /** The transport refuses the stream (the server never saw it). */
  public void refuse(RpcProgress progress) {
    finish(Status.UNAVAILABLE.withDescription("refused"), progress, new Metadata());
  }

  private void finish(Status status, RpcProgress progress, Metadata trailers) {
    ClientStreamListener l;
    boolean wasCounted;
    synchronized (this) {
      if (closed || listener == null) {
        return;
      }
      closed = true;
      l = listener;
      wasCounted = counted;
    }
    l.closed(status, progress, trailers);
    if (wasCounted) {
      transport.streamClosed();
    }
  }

  public synchronized ClientStreamListener listener() {
    if (listener == null) {
      throw new AssertionError("stream not started");
    }
    return listener;
  }

  public synchronized boolean isStarted() {
    return listener != null;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  public synchronized List<String> ops() {
    return new ArrayList<>(ops);
  }

  public synchronized List<String> messages() {
    return new ArrayList<>(messages);
  }

  public synchronized int requested() {
    return requested;
  }

  public synchronized Integer maxInbound() {
    return maxInbound;
  }

  public synchronized Integer maxOutbound() {
    return maxOutbound;
  }

  public synchronized DecompressorRegistry decompressorRegistry() {
    return decompressorRegistry;
  }

  public synchronized Compressor compressor() {
    return compressor;
  }

  public synchronized Status cancelStatus() {
    return cancelStatus;
  }

  public synchronized Thread startThread() {
    return startThread;
  }
}
