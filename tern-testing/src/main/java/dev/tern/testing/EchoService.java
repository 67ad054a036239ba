package dev.tern.testing;

import dev.tern.BindableService;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;

/**
 * A service for testing transports and runtimes, built directly on {@link ServerCall} (no stubs),
 * with one method of each shape, all on UTF-8 strings:
 *
 * <ul>
 *   <li>{@link #UNARY}: answers with the request.
 *   <li>{@link #SERVER_STREAMING}: the request is a count N in decimal; answers with N messages
 *       {@code "0"}, {@code "1"}, ... {@code "N-1"}, sent only while the call {@link
 *       ServerCall#isReady() is ready}, so a slow reader holds the sender back. A request that is
 *       not a non-negative number fails INVALID_ARGUMENT.
 *   <li>{@link #CLIENT_STREAMING}: answers with the concatenation of the requests, once the client
 *       half-closes.
 *   <li>{@link #BIDI_STREAMING}: answers each request with itself, as it arrives.
 * </ul>
 *
 * <p>Metadata: each request header whose name starts with {@link #ECHO_INITIAL_PREFIX} is sent back
 * in the response headers, and each one starting with {@link #ECHO_TRAILING_PREFIX} in the
 * trailers, values unchanged (ASCII or binary). Every successful call sends response headers (so a
 * client sees headers, messages and trailers); failures are Trailers-Only.
 *
 * <p>A unary or server-streaming call with no request, or more than one, fails INTERNAL.
 *
 * <p>Immutable; thread-safe. Each call gets its own listener, driven by the runtime one callback at
 * a time.
 */
public final class EchoService implements BindableService {
  /** The service name. */
  public static final String SERVICE_NAME = "tern.testing.Echo";

  /** An echo service; stateless, so one may serve any number of servers. */
  public EchoService() {}

  /** Request headers starting with this are echoed in the response headers. */
  public static final String ECHO_INITIAL_PREFIX = "echo-initial-";

  /** Request headers starting with this are echoed in the trailers. */
  public static final String ECHO_TRAILING_PREFIX = "echo-trailing-";

  /** {@code tern.testing.Echo/Unary}: answers with the request. */
  public static final MethodDescriptor<String, String> UNARY = method("Unary", MethodType.UNARY);

  /** {@code tern.testing.Echo/ServerStreaming}: N (decimal) in, "0".."N-1" out. */
  public static final MethodDescriptor<String, String> SERVER_STREAMING =
      method("ServerStreaming", MethodType.SERVER_STREAMING);

  /** {@code tern.testing.Echo/ClientStreaming}: answers with the requests concatenated. */
  public static final MethodDescriptor<String, String> CLIENT_STREAMING =
      method("ClientStreaming", MethodType.CLIENT_STREAMING);

  /** {@code tern.testing.Echo/BidiStreaming}: echoes each request as it arrives. */
  public static final MethodDescriptor<String, String> BIDI_STREAMING =
      method("BidiStreaming", MethodType.BIDI_STREAMING);

  private static final ServerServiceDefinition DEFINITION =
      ServerServiceDefinition.builder(SERVICE_NAME)
          .addMethod(UNARY, (call, headers) -> new SingleRequestListener(call, headers, false))
          .addMethod(
              SERVER_STREAMING, (call, headers) -> new SingleRequestListener(call, headers, true))
          .addMethod(CLIENT_STREAMING, ConcatenatingListener::start)
          .addMethod(BIDI_STREAMING, EchoingListener::start)
          .build();

  /** The service definition (the same immutable instance every time). */
  public static ServerServiceDefinition definition() {
    return DEFINITION;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return DEFINITION;
  }

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, name))
        .setType(type)
        .build();
  }

  /** The request entries whose names start with {@code prefix}, in order. */
  static Metadata copyWithPrefix(Metadata requestHeaders, String prefix) {
    Metadata copy = new Metadata();
    for (String name : requestHeaders.keys()) {
      if (!name.startsWith(prefix)) {
        continue;
      }
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        Metadata.Key<byte[]> key = Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
        for (byte[] value : requestHeaders.getAll(key)) {
          copy.put(key, value);
        }
      } else {
        Metadata.Key<String> key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
        for (String value : requestHeaders.getAll(key)) {
          copy.put(key, value);
        }
      }
    }
    return copy;
  }

  /** State shared by the listeners: the call, the echoed metadata, and whether it has ended. */
  private abstract static class EchoListener extends ServerCall.Listener<String> {
    final ServerCall<String, String> call;
    private final Metadata requestHeaders;
    private boolean headersSent;
    boolean done;

    EchoListener(ServerCall<String, String> call, Metadata requestHeaders) {
      this.call = call;
      this.requestHeaders = requestHeaders;
    }

    void sendHeadersOnce() {
      if (!headersSent) {
        headersSent = true;
        call.sendHeaders(copyWithPrefix(requestHeaders, ECHO_INITIAL_PREFIX));
      }
    }

    void closeOk() {
      sendHeadersOnce();
      done = true;
      call.close(Status.OK, copyWithPrefix(requestHeaders, ECHO_TRAILING_PREFIX));
    }

    void fail(Status status) {
      done = true;
      call.close(status, new Metadata());
    }

    @Override
    public void onCancel() {
      done = true;
    }
  }

  /** Unary and server streaming: exactly one request, answered on half-close. */
  private static final class SingleRequestListener extends EchoListener {
    private final boolean streaming;
    private String request;
    private int count;
    private int sent;
    private boolean sending;

    SingleRequestListener(ServerCall<String, String> call, Metadata headers, boolean streaming) {
      super(call, headers);
      this.streaming = streaming;
      // Two, so that a second request is noticed rather than left unread.
      call.request(2);
    }

    @Override
    public void onMessage(String message) {
      if (done) {
        return;
      }
      if (request != null) {
        fail(Status.INTERNAL.withDescription("more than one request for a single-request method"));
        return;
      }
      request = message;
    }

    @Override
    public void onHalfClose() {
      if (done) {
        return;
      }
      if (request == null) {
        fail(Status.INTERNAL.withDescription("half-closed without a request"));
        return;
      }
      if (!streaming) {
        sendHeadersOnce();
        call.sendMessage(request);
        closeOk();
        return;
      }
      try {
        count = Integer.parseInt(request.trim());
      } catch (NumberFormatException e) {
        count = -1;
      }
      if (count < 0) {
        fail(
            Status.INVALID_ARGUMENT.withDescription(
                "request must be a non-negative count: '" + request + "'"));
        return;
      }
      sendHeadersOnce();
      sending = true;
      sendWhileReady();
    }

    @Override
    public void onReady() {
      if (sending && !done) {
        sendWhileReady();
      }
    }

    private void sendWhileReady() {
      while (sent < count && call.isReady()) {
        call.sendMessage(Integer.toString(sent++));
      }
      if (sent == count) {
        closeOk();
      }
    }
  }

  /** Client streaming: concatenates the requests, answering on half-close. */
  private static final class ConcatenatingListener extends EchoListener {
    private final StringBuilder requests = new StringBuilder();

    private ConcatenatingListener(ServerCall<String, String> call, Metadata headers) {
      super(call, headers);
    }

    static ServerCall.Listener<String> start(ServerCall<String, String> call, Metadata headers) {
      ConcatenatingListener listener = new ConcatenatingListener(call, headers);
      call.request(1);
      return listener;
    }

    @Override
    public void onMessage(String message) {
      if (done) {
        return;
      }
      requests.append(message);
      call.request(1);
    }

    @Override
    public void onHalfClose() {
      if (done) {
        return;
      }
      sendHeadersOnce();
      call.sendMessage(requests.toString());
      closeOk();
    }
  }

  /** Bidi streaming: echoes each request as it arrives, one request asked for at a time. */
  private static final class EchoingListener extends EchoListener {
    private EchoingListener(ServerCall<String, String> call, Metadata headers) {
      super(call, headers);
    }

    static ServerCall.Listener<String> start(ServerCall<String, String> call, Metadata headers) {
      EchoingListener listener = new EchoingListener(call, headers);
      call.request(1);
      return listener;
    }

    @Override
    public void onMessage(String message) {
      if (done) {
        return;
      }
      sendHeadersOnce();
      call.sendMessage(message);
      call.request(1);
    }

    @Override
    public void onHalfClose() {
      if (!done) {
        closeOk();
      }
    }
  }
}
