package dev.tern.internal.server;

import dev.tern.Attributes;
import dev.tern.Compressor;
import dev.tern.Decompressor;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.spi.HandOff;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A server stream a test drives by hand: it records what the runtime does to it and lets the test
 * play the client ({@link #clientSends}, {@link #clientHalfCloses}, {@link #reportClosed}). Like a
 * real transport, {@link #cancel} reports {@code closed(status)} at once unless already closed.
 *
 * <p>Not thread-safe beyond volatile fields: tests drive it from one thread.
 */
public final class FakeServerStream implements ServerStream {
  private final Attributes attributes;
  private final String authority;

  public volatile ServerStreamListener listener;
  public volatile Decompressor decompressor;
  public volatile int maxInboundMessageSize = -1;
  public volatile int requested;
  public volatile Metadata writtenHeaders;
  public volatile boolean headersFlushed;
  public final List<String> writtenMessages = new ArrayList<>();
  public volatile int flushes;
  public volatile Status closeStatus;
  public volatile Metadata closeTrailers;
  public volatile Status cancelStatus;

  /** What the call's listener had heard when the runtime said the cancelled call was finished. */
  public volatile List<String> eventsWhenFinished;

  /** How often the runtime said the cancelled call was finished. */
  public volatile int cancelledCallFinished;

  /** Read at {@link #cancelledCallFinished()}: the events the test's listener recorded. */
  public volatile Supplier<List<String>> listenerEvents = List::of;

  public volatile boolean ready = true;

  /** What {@link #handOff()} returns. */
  public volatile HandOff handOff = HandOff.DIRECT;

  public volatile Compressor compressor;
  public volatile Boolean messageCompression;
  public final List<TrackedMessage> sentToServer = new ArrayList<>();
  private volatile boolean closedReported;

  public FakeServerStream(Attributes attributes, String authority) {
    this.attributes = attributes;
    this.authority = authority;
  }

  // --- Driven by the test, playing the client and the transport ---

  /** The client sends {@code message} (UTF-8); returns it so the test can check it was closed. */
  public TrackedMessage clientSends(String message) {
    TrackedMessage tracked = new TrackedMessage(message.getBytes(StandardCharsets.UTF_8));
    sentToServer.add(tracked);
    listener.messageRead(tracked);
    return tracked;
  }

  public void clientHalfCloses() {
    listener.halfClosed();
  }

  /** The transport reports the end of the stream; at most once, like a real transport. */
  public void reportClosed(Status status) {
    if (closedReported) {
      throw new AssertionError("closed reported twice");
    }
    closedReported = true;
    listener.closed(status);
  }

  /** The runtime's close reached the client: closed(OK). */
  public void completeClose() {
    if (closeStatus == null) {
      throw new AssertionError("the runtime did not close the stream");
    }
    reportClosed(Status.OK);
  }

  public void becomeReady() {
    ready = true;
    listener.onReady();
  }

  public boolean isClosedReported() {
    return closedReported;
  }

  // --- ServerStream, called by the runtime ---

  @Override
  public HandOff handOff() {
    return handOff;
  }

  @Override
  public void setListener(ServerStreamListener listener) {
    if (this.listener != null) {
      throw new AssertionError("setListener called twice");
    }
    this.listener = listener;
  }

  @Override
  public void setDecompressor(Decompressor decompressor) {
    this.decompressor = decompressor;
  }

  @Override
  public void setMaxInboundMessageSize(int bytes) {
    this.maxInboundMessageSize = bytes;
  }

  @Override
  public void request(int numMessages) {
    requested += numMessages;
  }

  @Override
  public void writeHeaders(Metadata headers, boolean flush) {
    if (writtenHeaders != null) {
      throw new AssertionError("writeHeaders called twice");
    }
    writtenHeaders = headers;
    headersFlushed = flush;
  }

  @Override
  public void writeMessage(InputStream message) {
    try (InputStream in = message) {
      writtenMessages.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void flush() {
    flushes++;
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void setMessageCompression(boolean enable) {
    messageCompression = enable;
  }

  @Override
  public void setCompressor(Compressor compressor) {
    this.compressor = compressor;
  }

  @Override
  public void close(Status status, Metadata trailers) {
    if (closeStatus != null) {
      throw new AssertionError("close called twice");
    }
    closeStatus = status;
    closeTrailers = trailers;
  }

  @Override
  public void cancel(Status status) {
    if (cancelStatus != null) {
      return;
    }
    cancelStatus = status;
    if (!closedReported) {
      reportClosed(status);
    }
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public String getAuthority() {
    return authority;
  }

  @Override
  public void cancelledCallFinished() {
    cancelledCallFinished++;
    eventsWhenFinished = List.copyOf(listenerEvents.get());
  }

  /** A request message that remembers whether the runtime closed it. */
  public static final class TrackedMessage extends ByteArrayInputStream {
    private volatile boolean closed;

    TrackedMessage(byte[] bytes) {
      super(bytes);
    }

    @Override
    public void close() {
      closed = true;
    }

    public boolean isClosed() {
      return closed;
    }
  }
}
