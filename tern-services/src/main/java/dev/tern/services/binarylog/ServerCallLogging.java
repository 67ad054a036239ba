package dev.tern.services.binarylog;

import dev.tern.Attributes;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerMethodDefinition;
import dev.tern.Status;
import dev.tern.services.binarylog.v1.GrpcLogEntry;
import java.io.ByteArrayInputStream;
import java.util.concurrent.TimeUnit;

/**
 * The server half of the binary log: a method definition whose calls carry serialized bytes, so
 * that each message is logged as it was on the wire and parsed (or serialized) once with the
 * method's own marshallers, around the application's handler.
 *
 * <p>Logs CLIENT_HEADER (with the client's address, the authority and the time left before the
 * deadline) when the call starts, CLIENT_MESSAGE and CLIENT_HALF_CLOSE as the handler receives
 * them, SERVER_HEADER, SERVER_MESSAGE and SERVER_TRAILER as the handler sends them, and CANCEL when
 * the call is cancelled.
 */
final class ServerCallLogging {
  private ServerCallLogging() {}

  static <ReqT, RespT> ServerMethodDefinition<byte[], byte[]> wrap(
      ServerMethodDefinition<ReqT, RespT> definition,
      BinaryLogFilter.Limits limits,
      CallLogFactory logs) {
    MethodDescriptor<ReqT, RespT> method = definition.getMethodDescriptor();
    ServerCallHandler<ReqT, RespT> handler = definition.getServerCallHandler();
    MethodDescriptor<byte[], byte[]> raw =
        MethodDescriptor.newBuilder(ByteArrayMarshaller.INSTANCE, ByteArrayMarshaller.INSTANCE)
            .setType(method.getType())
            .setFullMethodName(method.getFullMethodName())
            .setSchemaDescriptor(method.getSchemaDescriptor())
            .setIdempotent(method.isIdempotent())
            .setSafe(method.isSafe())
            .setSampledToLocalTracing(method.isSampledToLocalTracing())
            .build();
    return ServerMethodDefinition.create(
        raw,
        (rawCall, headers) -> {
          CallLog log = logs.newCallLog(GrpcLogEntry.Logger.LOGGER_SERVER, limits);
          Deadline deadline = Context.current().getDeadline();
          log.clientHeader(
              headers,
              method.getFullMethodName(),
              rawCall.getAuthority(),
              deadline == null ? -1 : Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS)),
              rawCall.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
          LoggedCall<ReqT, RespT> call = new LoggedCall<>(rawCall, method, log);
          return new LoggedListener<>(handler.startCall(call, headers), call, method, log);
        });
  }

  /**
   * The call the application sees: typed messages, logged and serialized here. Thread-safety as
   * {@link ServerCall}'s.
   */
  private static final class LoggedCall<ReqT, RespT> extends ServerCall<ReqT, RespT> {
    private final ServerCall<byte[], byte[]> raw;
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallLog log;

    LoggedCall(ServerCall<byte[], byte[]> raw, MethodDescriptor<ReqT, RespT> method, CallLog log) {
      this.raw = raw;
      this.method = method;
      this.log = log;
    }

    @Override
    public void request(int numMessages) {
      raw.request(numMessages);
    }

    @Override
    public void sendHeaders(Metadata headers) {
      log.serverHeader(headers, null);
      raw.sendHeaders(headers);
    }

    @Override
    public void sendMessage(RespT message) {
      byte[] bytes = ByteArrayMarshaller.serialize(method.streamResponse(message));
      log.message(false, bytes);
      raw.sendMessage(bytes);
    }

    @Override
    public boolean isReady() {
      return raw.isReady();
    }

    @Override
    public void close(Status status, Metadata trailers) {
      log.trailer(status, trailers, null);
      raw.close(status, trailers);
    }

    @Override
    public boolean isCancelled() {
      return raw.isCancelled();
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      raw.setMessageCompression(enabled);
    }

    @Override
    public void setCompression(String compressorName) {
      raw.setCompression(compressorName);
    }

    @Override
    public Attributes getAttributes() {
      return raw.getAttributes();
    }

    @Override
    public String getAuthority() {
      return raw.getAuthority();
    }

    @Override
    public MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
      return method;
    }
  }

  /**
   * Logs what the handler receives and parses each request. Called serially, as every call
   * listener.
   */
  private static final class LoggedListener<ReqT> extends ServerCall.Listener<byte[]> {
    private final ServerCall.Listener<ReqT> next;
    private final ServerCall<ReqT, ?> call;
    private final MethodDescriptor<ReqT, ?> method;
    private final CallLog log;
    private boolean failed;

    LoggedListener(
        ServerCall.Listener<ReqT> next,
        ServerCall<ReqT, ?> call,
        MethodDescriptor<ReqT, ?> method,
        CallLog log) {
      this.next = next;
      this.call = call;
      this.method = method;
      this.log = log;
    }

    @Override
    public void onMessage(byte[] message) {
      if (failed) {
        return;
      }
      log.message(true, message);
      ReqT request;
      try {
        request = method.parseRequest(new ByteArrayInputStream(message));
      } catch (RuntimeException e) {
        // What the runtime does for a request it cannot parse, had the log not been there: the
        // call fails INTERNAL and the handler hears onCancel (and nothing after it).
        failed = true;
        call.close(
            Status.INTERNAL.withDescription("Failed to parse request").withCause(e),
            new Metadata());
        next.onCancel();
        return;
      }
      next.onMessage(request);
    }

    @Override
    public void onHalfClose() {
      if (failed) {
        return;
      }
      log.halfClose();
      next.onHalfClose();
    }

    @Override
    public void onCancel() {
      if (failed) {
        return;
      }
      log.cancel();
      next.onCancel();
    }

    @Override
    public void onComplete() {
      if (!failed) {
        next.onComplete();
      }
    }

    @Override
    public void onReady() {
      if (!failed) {
        next.onReady();
      }
    }
  }
}
