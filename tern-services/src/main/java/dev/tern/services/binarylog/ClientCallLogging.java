package dev.tern.services.binarylog;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import java.io.ByteArrayInputStream;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The client half of the binary log: a channel whose logged calls carry serialized bytes below it,
 * so each message is serialized (or parsed) once with the method's own marshallers and logged as it
 * goes on or comes off the wire. Methods the filter does not log pass through untouched.
 *
 * <p>Logs CLIENT_HEADER (with the authority and the time left before the deadline) when the call
 * starts, CLIENT_MESSAGE, CLIENT_HALF_CLOSE and CANCEL as the application sends them, and
 * SERVER_HEADER (with the server's address), SERVER_MESSAGE and SERVER_TRAILER as they are
 * delivered (the trailer carries the address when the server answered with trailers only).
 *
 * <p>Thread-safe, as every channel.
 */
final class ClientCallLogging extends Channel {
  private final Channel next;
  private final BinaryLogFilter filter;
  private final CallLogFactory logs;

  ClientCallLogging(Channel next, BinaryLogFilter filter, CallLogFactory logs) {
    this.next = next;
    this.filter = filter;
    this.logs = logs;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    BinaryLogFilter.Limits limits = filter.limitsFor(method.getFullMethodName());
    if (limits == null) {
      return next.newCall(method, callOptions);
    }
    MethodDescriptor<byte[], byte[]> raw =
        MethodDescriptor.newBuilder(ByteArrayMarshaller.INSTANCE, ByteArrayMarshaller.INSTANCE)
            .setType(method.getType())
            .setFullMethodName(method.getFullMethodName())
            .setSchemaDescriptor(method.getSchemaDescriptor())
            .setIdempotent(method.isIdempotent())
            .setSafe(method.isSafe())
            .setSampledToLocalTracing(method.isSampledToLocalTracing())
            .build();
    CallLog log = logs.newCallLog(GrpcLogEntry.Logger.LOGGER_CLIENT, limits);
    return new LoggedCall<>(next.newCall(raw, callOptions), method, callOptions, log, this);
  }

  @Override
  public String authority() {
    return next.authority();
  }

  /** The call the application sees. Thread-safety as {@link ClientCall}'s. */
  private static final class LoggedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final ClientCall<byte[], byte[]> raw;
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions callOptions;
    private final CallLog log;
    private final Channel channel;
    private volatile LoggedListener<RespT> listener;

    LoggedCall(
        ClientCall<byte[], byte[]> raw,
        MethodDescriptor<ReqT, RespT> method,
        CallOptions callOptions,
        CallLog log,
        Channel channel) {
      this.raw = raw;
      this.method = method;
      this.callOptions = callOptions;
      this.log = log;
      this.channel = channel;
    }

    @Override
    public void start(Listener<RespT> responseListener, Metadata headers) {
      Deadline deadline = callOptions.getDeadline();
      Deadline inherited = Context.current().getDeadline();
      if (inherited != null) {
        deadline = deadline == null ? inherited : deadline.minimum(inherited);
      }
      String authority = callOptions.getAuthority();
      log.clientHeader(
          headers,
          method.getFullMethodName(),
          authority != null ? authority : channel.authority(),
          deadline == null ? -1 : Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)),
          null);
      listener = new LoggedListener<>(responseListener, raw, method, log);
      raw.start(listener, headers);
    }

    @Override
    public void request(int numMessages) {
      raw.request(numMessages);
    }

    @Override
    public void cancel(String message, Throwable cause) {
      if (listener != null) {
        listener.cancelled = true;
      }
      log.cancel();
      raw.cancel(message, cause);
    }

    @Override
    public void halfClose() {
      log.halfClose();
      raw.halfClose();
    }

    @Override
    public void sendMessage(ReqT message) {
      byte[] bytes = ByteArrayMarshaller.serialize(method.streamRequest(message));
      log.message(true, bytes);
      raw.sendMessage(bytes);
    }

    @Override
    public boolean isReady() {
      return raw.isReady();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      raw.setMessageCompression(enabled);
    }

    @Override
    public Attributes getAttributes() {
      return raw.getAttributes();
    }
  }

  /** Logs what the server sends and parses each response. Called serially. */
  private static final class LoggedListener<RespT> extends ClientCall.Listener<byte[]> {
    private final ClientCall.Listener<RespT> next;
    private final ClientCall<byte[], byte[]> raw;
    private final MethodDescriptor<?, RespT> method;
    private final CallLog log;
    private boolean sawHeaders;
    private Status parseFailure;

    /**
     * Set when the application cancels: the status that follows is made up locally, so it carries
     * no peer.
     */
    volatile boolean cancelled;

    LoggedListener(
        ClientCall.Listener<RespT> next,
        ClientCall<byte[], byte[]> raw,
        MethodDescriptor<?, RespT> method,
        CallLog log) {
      this.next = next;
      this.raw = raw;
      this.method = method;
      this.log = log;
    }

    private SocketAddress peer() {
      return raw.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    }

    @Override
    public void onHeaders(Metadata headers) {
      sawHeaders = true;
      log.serverHeader(headers, peer());
      next.onHeaders(headers);
    }

    @Override
    public void onMessage(byte[] message) {
      if (parseFailure != null) {
        return;
      }
      log.message(false, message);
      RespT response;
      try {
        response = method.parseResponse(new ByteArrayInputStream(message));
      } catch (RuntimeException e) {
        // What the runtime reports for a response it cannot parse, had the log not been there.
        parseFailure = Status.INTERNAL.withDescription("Failed to read message").withCause(e);
        raw.cancel("Failed to read message", e);
        return;
      }
      next.onMessage(response);
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      Status reported = parseFailure != null ? parseFailure : status;
      log.trailer(reported, trailers, sawHeaders || cancelled ? null : peer());
      next.onClose(reported, trailers);
    }

    @Override
    public void onReady() {
      next.onReady();
    }
  }
}
