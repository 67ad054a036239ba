package dev.tern.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.tern.Channel;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.conformance.v1.BidiStreamRequest;
import dev.tern.conformance.v1.BidiStreamResponse;
import dev.tern.conformance.v1.ClientCompatRequest;
import dev.tern.conformance.v1.ClientCompatResponse;
import dev.tern.conformance.v1.ClientErrorResult;
import dev.tern.conformance.v1.ClientResponseResult;
import dev.tern.conformance.v1.ClientStreamRequest;
import dev.tern.conformance.v1.ClientStreamResponse;
import dev.tern.conformance.v1.Compression;
import dev.tern.conformance.v1.ConformancePayload;
import dev.tern.conformance.v1.ConformanceServiceTern;
import dev.tern.conformance.v1.ConformanceServiceTern.ConformanceServiceStub;
import dev.tern.conformance.v1.IdempotentUnaryRequest;
import dev.tern.conformance.v1.IdempotentUnaryResponse;
import dev.tern.conformance.v1.ServerStreamRequest;
import dev.tern.conformance.v1.ServerStreamResponse;
import dev.tern.conformance.v1.StreamType;
import dev.tern.conformance.v1.UnaryRequest;
import dev.tern.conformance.v1.UnaryResponse;
import dev.tern.conformance.v1.UnimplementedRequest;
import dev.tern.conformance.v1.UnimplementedResponse;
import dev.tern.stub.MetadataUtils;
import dev.tern.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * One call of the client under test: makes the call a {@link ClientCompatRequest} describes with
 * Tern's generated async stub (request headers, compression, deadline, receive limit, request
 * delays, cancellation at the requested point) and reports what came back as a {@link
 * ClientCompatResponse}, following the runner's client guide (docs/testing_clients.md).
 *
 * <p>Not thread-safe: one thread runs {@link #run}, which blocks until the call has ended; the
 * call's own callbacks go to a {@link ResponseRecorder}.
 */
final class ClientCase {
  /**
   * How long a call may run past what the test case itself allows before it is cancelled as hung:
   * the runner's cases last a few seconds at most.
   */
  static final long HUNG_CALL_MILLIS = 60_000;

  private final ClientCompatRequest request;
  private final Channel channel;
  private final ScheduledExecutorService scheduler;
  private final AtomicReference<Metadata> headers = new AtomicReference<>();
  private final AtomicReference<Metadata> trailers = new AtomicReference<>();

  ClientCase(ClientCompatRequest request, Channel channel, ScheduledExecutorService scheduler) {
    this.request = request;
    this.channel = channel;
    this.scheduler = scheduler;
  }

  /** Makes the call and reports it; never throws for a call that fails. */
  ClientCompatResponse run() throws InterruptedException {
    ClientCompatResponse.Builder response =
        ClientCompatResponse.newBuilder().setTestName(request.getTestName());
    try {
      return response.setResponse(call()).build();
    } catch (BadRequestException e) {
      return response.setError(ClientErrorResult.newBuilder().setMessage(e.getMessage())).build();
    }
  }

  private ClientResponseResult call() throws InterruptedException, BadRequestException {
    if (request.hasService() && !request.getService().equals(ConformanceServiceTern.SERVICE_NAME)) {
      throw new BadRequestException("unknown service " + request.getService());
    }
    String method = request.hasMethod() ? request.getMethod() : defaultMethod();
    ConformanceServiceStub stub = stub();
    switch (method) {
      case "Unary":
        return single(message(UnaryRequest.class), stub::unary, UnaryResponse::getPayload, false);
      case "IdempotentUnary":
        return single(
            message(IdempotentUnaryRequest.class),
            stub::idempotentUnary,
            IdempotentUnaryResponse::getPayload,
            false);
      case "Unimplemented":
        return single(
            message(UnimplementedRequest.class),
            stub::unimplemented,
            (UnimplementedResponse r) -> ConformancePayload.getDefaultInstance(),
            false);
      case "ServerStream":
        return single(
            message(ServerStreamRequest.class),
            stub::serverStream,
            ServerStreamResponse::getPayload,
            true);
      case "ClientStream":
        return streaming(
            messages(ClientStreamRequest.class),
            stub::clientStream,
            ClientStreamResponse::getPayload,
            false,
            false);
      case "BidiStream":
        return streaming(
            messages(BidiStreamRequest.class),
            stub::bidiStream,
            BidiStreamResponse::getPayload,
            request.getStreamType() == StreamType.STREAM_TYPE_HALF_DUPLEX_BIDI_STREAM,
            request.getStreamType() == StreamType.STREAM_TYPE_FULL_DUPLEX_BIDI_STREAM);
      default:
        throw new BadRequestException("unknown method " + method);
    }
  }

  private String defaultMethod() throws BadRequestException {
    switch (request.getStreamType()) {
      case STREAM_TYPE_UNARY:
        return "Unary";
      case STREAM_TYPE_CLIENT_STREAM:
        return "ClientStream";
      case STREAM_TYPE_SERVER_STREAM:
        return "ServerStream";
      case STREAM_TYPE_HALF_DUPLEX_BIDI_STREAM:
      case STREAM_TYPE_FULL_DUPLEX_BIDI_STREAM:
        return "BidiStream";
      default:
        throw new BadRequestException(
            "no method and no known stream type: " + request.getStreamType());
    }
  }

  /** The stub with the case's headers, compression, deadline and receive limit. */
  private ConformanceServiceStub stub() throws BadRequestException {
    Metadata requestHeaders;
    try {
      requestHeaders = HeaderLists.toMetadata(request.getRequestHeadersList());
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("bad request header: " + e.getMessage());
    }
    ConformanceServiceStub stub =
        ConformanceServiceTern.newStub(channel)
            .withInterceptors(
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers),
                MetadataUtils.newAttachHeadersInterceptor(requestHeaders));
    if (request.getCompression() == Compression.COMPRESSION_GZIP) {
      stub = stub.withCompression("gzip");
    } else if (request.getCompression() != Compression.COMPRESSION_IDENTITY
        && request.getCompression() != Compression.COMPRESSION_UNSPECIFIED) {
      throw new BadRequestException("unsupported compression " + request.getCompression());
    }
    if (request.hasTimeoutMs()) {
      stub = stub.withDeadlineAfter(request.getTimeoutMs(), TimeUnit.MILLISECONDS);
    }
    if (request.getMessageReceiveLimit() > 0) {
      stub = stub.withMaxInboundMessageSize(request.getMessageReceiveLimit());
    }
    return stub;
  }

  /** A call with one request: unary or server stream. */
  private <ReqT, RespT> ClientResponseResult single(
      ReqT message,
      SingleRequestCall<ReqT, RespT> start,
      Function<RespT, ConformancePayload> payloadOf,
      boolean streamingResponse)
      throws InterruptedException {
    ResponseRecorder<ReqT, RespT> recorder =
        new ResponseRecorder<>(payloadOf, cancelAfterResponses());
    start.start(message, recorder);
    // Unary and server-stream calls half-close as they start: "after close send" counts from here.
    if (request.hasCancel()
        && request.getCancel().getCancelTimingCase()
            != ClientCompatRequest.Cancel.CancelTimingCase.AFTER_NUM_RESPONSES) {
      cancelAfter(recorder, request.getCancel().getAfterCloseSendMs());
    }
    return finish(recorder, 0, !streamingResponse);
  }

  /** A call with a request stream: client stream, or half- or full-duplex bidi stream. */
  private <ReqT, RespT> ClientResponseResult streaming(
      List<ReqT> messages,
      StreamingCall<ReqT, RespT> start,
      Function<RespT, ConformancePayload> payloadOf,
      boolean halfDuplex,
      boolean fullDuplex)
      throws InterruptedException {
    ResponseRecorder<ReqT, RespT> recorder =
        new ResponseRecorder<>(payloadOf, cancelAfterResponses());
    StreamObserver<ReqT> requests = start.start(recorder);
    int sent = 0;
    for (ReqT message : messages) {
      if (request.getRequestDelayMs() > 0) {
        Thread.sleep(request.getRequestDelayMs());
      }
      if (recorder.ended()) {
        break;
      }
      try {
        requests.onNext(message);
      } catch (RuntimeException e) {
        // The call ended while this message was being sent (a cancelled call refuses messages).
        break;
      }
      sent++;
      if (fullDuplex && !recorder.awaitResponses(sent, HUNG_CALL_MILLIS)) {
        recorder.cancel("no response to request " + sent + " within " + HUNG_CALL_MILLIS + " ms");
      }
    }
    int unsent = messages.size() - sent;
    ClientCompatRequest.Cancel cancel = request.getCancel();
    if (request.hasCancel()
        && cancel.getCancelTimingCase()
            == ClientCompatRequest.Cancel.CancelTimingCase.BEFORE_CLOSE_SEND) {
      recorder.cancel("the test case cancels before half-closing");
    } else {
      if (!recorder.ended()) {
        requests.onCompleted();
      }
      if (request.hasCancel()
          && cancel.getCancelTimingCase()
              != ClientCompatRequest.Cancel.CancelTimingCase.AFTER_NUM_RESPONSES) {
        cancelAfter(recorder, cancel.getAfterCloseSendMs());
      }
    }
    return finish(recorder, unsent, !fullDuplex && !halfDuplex);
  }

  private int cancelAfterResponses() {
    return request.getCancel().getCancelTimingCase()
            == ClientCompatRequest.Cancel.CancelTimingCase.AFTER_NUM_RESPONSES
        ? request.getCancel().getAfterNumResponses()
        : 0;
  }

  /** Cancels the call {@code millis} from now (at once for 0), from the scheduler. */
  private void cancelAfter(ResponseRecorder<?, ?> recorder, int millis) {
    String why = "the test case cancels " + millis + " ms after half-closing";
    if (millis == 0) {
      recorder.cancel(why);
    } else {
      scheduler.schedule(() -> recorder.cancel(why), millis, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Waits for the end of the call and reports it. A call with a single response ({@code
   * singleResponse}: unary, client stream) that fails reports no payload, as the runner's client
   * guide says, even if the stub had passed on a response before the failure (the second of two
   * responses fails the call after the first went to {@code onNext}).
   */
  private ClientResponseResult finish(
      ResponseRecorder<?, ?> recorder, int unsent, boolean singleResponse)
      throws InterruptedException {
    long allowed = HUNG_CALL_MILLIS + (request.hasTimeoutMs() ? request.getTimeoutMs() : 0);
    Status status = recorder.awaitEnd(allowed);
    if (status == null) {
      recorder.cancel("the call did not end within " + allowed + " ms");
      status = recorder.awaitEnd(HUNG_CALL_MILLIS);
      if (status == null) {
        status = Status.UNKNOWN.withDescription("the call did not end even when cancelled");
      }
    }
    ClientResponseResult.Builder result =
        ClientResponseResult.newBuilder()
            .addAllResponseHeaders(HeaderLists.fromMetadata(headers.get()))
            .addAllResponseTrailers(HeaderLists.fromMetadata(trailers.get()))
            .setNumUnsentRequests(unsent);
    if (status.isOk() || !singleResponse) {
      result.addAllPayloads(recorder.payloads());
    }
    if (!status.isOk()) {
      result.setError(ConformanceErrors.fromStatus(status, trailers.get()));
    }
    return result.build();
  }

  private <T extends Message> T message(Class<T> type) throws BadRequestException {
    List<T> messages = messages(type);
    if (messages.size() != 1) {
      throw new BadRequestException(
          "a "
              + request.getStreamType()
              + " call needs exactly one request message, not "
              + messages.size());
    }
    return messages.get(0);
  }

  private <T extends Message> List<T> messages(Class<T> type) throws BadRequestException {
    List<T> messages = new ArrayList<>();
    for (Any any : request.getRequestMessagesList()) {
      if (!any.is(type)) {
        throw new BadRequestException(
            "request message of type "
                + any.getTypeUrl()
                + " where "
                + type.getSimpleName()
                + " was expected");
      }
      try {
        messages.add(any.unpack(type));
      } catch (InvalidProtocolBufferException e) {
        throw new BadRequestException("request message does not parse: " + e.getMessage());
      }
    }
    return messages;
  }

  /** Starts a unary or server-streaming call on the stub. */
  private interface SingleRequestCall<ReqT, RespT> {
    void start(ReqT request, StreamObserver<RespT> responses);
  }

  /** Starts a client- or bidi-streaming call on the stub. */
  private interface StreamingCall<ReqT, RespT> {
    StreamObserver<ReqT> start(StreamObserver<RespT> responses);
  }

  /** The request cannot be made into a call; reported as the case's error result. */
  private static final class BadRequestException extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequestException(String message) {
      super(message);
    }
  }
}
