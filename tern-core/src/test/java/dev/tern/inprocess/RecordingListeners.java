package dev.tern.inprocess;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ManagedClientTransport;
import dev.tern.spi.ServerListener;
import dev.tern.spi.ServerStream;
import dev.tern.spi.ServerStreamListener;
import dev.tern.spi.ServerTransport;
import dev.tern.spi.ServerTransportListener;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Fakes that record what the in-process transport tells its listeners. Thread-safe enough for the
 * tests: the lists are copy-on-write, the transport delivers one event at a time per listener.
 */
final class RecordingListeners {
  private RecordingListeners() {}

  static final MethodDescriptor<byte[], byte[]> METHOD =
      MethodDescriptor.newBuilder(new BytesMarshaller(), new BytesMarshaller())
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("test.Echo/Chat")
          .build();

  static InputStream message(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  static String read(InputStream in) {
    try (InputStream stream = in) {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Passes byte arrays through unchanged. */
  static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Records client transport events as strings, e.g. "ready", "shutdown:UNAVAILABLE". */
  static final class ClientTransportEvents implements ManagedClientTransport.Listener {
    final List<String> events = new CopyOnWriteArrayList<>();
    volatile Status shutdownStatus;

    @Override
    public void transportReady() {
      events.add("ready");
    }

    @Override
    public void transportShutdown(Status status) {
      shutdownStatus = status;
      events.add("shutdown:" + status.getCode());
    }

    @Override
    public void transportTerminated() {
      events.add("terminated");
    }

    @Override
    public void transportInUse(boolean inUse) {
      events.add("inUse:" + inUse);
    }
  }

  /** The runtime side of a server: one {@link ServerConnection} per accepted transport. */
  static final class ServerEvents implements ServerListener {
    final List<ServerConnection> connections = new CopyOnWriteArrayList<>();
    final AtomicInteger shutdowns = new AtomicInteger();

    /** Attributes the connections' transportReady adds, like a transport filter would. */
    volatile Attributes extraAttributes = Attributes.EMPTY;

    /** When false, streamCreated does not install a listener (a misbehaving runtime). */
    volatile boolean installStreamListeners = true;

    /** When true, transportReady shuts the connection down, as a rejecting filter would. */
    volatile boolean rejectConnections;

    /** Runs inside streamCreated (after the listener is set), e.g. to set a message limit. */
    volatile Consumer<ServerStream> onStreamCreated = stream -> {};

    @Override
    public ServerTransportListener transportCreated(ServerTransport transport) {
      ServerConnection connection = new ServerConnection(transport, this);
      connections.add(connection);
      return connection;
    }

    @Override
    public void serverShutdown() {
      shutdowns.incrementAndGet();
    }

    ServerConnection onlyConnection() {
      if (connections.size() != 1) {
        throw new AssertionError("expected one connection, got " + connections.size());
      }
      return connections.get(0);
    }
  }

  /** One accepted connection, recording its streams. */
  static final class ServerConnection implements ServerTransportListener {
    final ServerTransport transport;
    final ServerEvents server;
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<ServerCall> calls = new CopyOnWriteArrayList<>();
    volatile Attributes readyAttributes;

    ServerConnection(ServerTransport transport, ServerEvents server) {
      this.transport = transport;
      this.server = server;
    }

    @Override
    public void streamCreated(ServerStream stream, String fullMethodName, Metadata headers) {
      events.add("streamCreated");
      ServerCall call = new ServerCall(stream, fullMethodName, headers);
      if (!server.installStreamListeners) {
        return;
      }
      stream.setListener(call);
      calls.add(call);
      server.onStreamCreated.accept(stream);
    }

    @Override
    public Attributes transportReady(Attributes transportAttrs) {
      readyAttributes = transportAttrs;
      events.add("ready");
      if (server.rejectConnections) {
        transport.shutdownNow(Status.UNAVAILABLE.withDescription("rejected"));
      }
      return transportAttrs.toBuilder().setAll(server.extraAttributes).build();
    }

    @Override
    public void transportTerminated() {
      events.add("terminated");
    }

    ServerCall lastCall() {
      return calls.get(calls.size() - 1);
    }
  }

  /** A server stream and everything its listener received. */
  static final class ServerCall implements ServerStreamListener {
    final ServerStream stream;
    final String method;
    final Metadata headers;
    final List<String> messages = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger onReadyCount = new AtomicInteger();
    volatile Status closedStatus;
    private final AtomicInteger running = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();

    ServerCall(ServerStream stream, String method, Metadata headers) {
      this.stream = stream;
      this.method = method;
      this.headers = headers;
    }

    private void enter() {
      if (running.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
    }

    private void exit() {
      running.decrementAndGet();
    }

    @Override
    public void messageRead(InputStream message) {
      enter();
      String text = read(message);
      messages.add(text);
      events.add("message:" + text);
      exit();
    }

    @Override
    public void onReady() {
      enter();
      onReadyCount.incrementAndGet();
      events.add("onReady");
      exit();
    }

    @Override
    public void halfClosed() {
      enter();
      events.add("halfClosed");
      exit();
    }

    @Override
    public void closed(Status status) {
      enter();
      if (closedStatus != null) {
        throw new AssertionError("closed twice: " + closedStatus + " then " + status);
      }
      closedStatus = status;
      events.add("closed:" + status.getCode());
      exit();
    }
  }

  /** Everything a client stream's listener received. */
  static final class ClientCall implements ClientStreamListener {
    final List<String> messages = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    final AtomicInteger onReadyCount = new AtomicInteger();
    final AtomicInteger closedCount = new AtomicInteger();
    volatile Metadata headers;
    volatile Status status;
    volatile RpcProgress progress;
    volatile Metadata trailers;
    private final AtomicInteger running = new AtomicInteger();
    final AtomicInteger overlaps = new AtomicInteger();

    private void enter() {
      if (running.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
    }

    private void exit() {
      running.decrementAndGet();
    }

    @Override
    public void headersRead(Metadata headers) {
      enter();
      this.headers = headers;
      events.add("headers");
      exit();
    }

    @Override
    public void messageRead(InputStream message) {
      enter();
      String text = read(message);
      messages.add(text);
      events.add("message:" + text);
      exit();
    }

    @Override
    public void onReady() {
      enter();
      onReadyCount.incrementAndGet();
      events.add("onReady");
      exit();
    }

    @Override
    public void closed(Status status, RpcProgress progress, Metadata trailers) {
      enter();
      closedCount.incrementAndGet();
      this.status = status;
      this.progress = progress;
      this.trailers = trailers;
      events.add("closed:" + status.getCode());
      exit();
    }
  }
}
