package dev.tern.conformance;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.tern.Metadata;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.conformance.v1.BidiStreamRequest;
import dev.tern.conformance.v1.BidiStreamResponse;
import dev.tern.conformance.v1.ClientStreamRequest;
import dev.tern.conformance.v1.ClientStreamResponse;
import dev.tern.conformance.v1.ConformancePayload;
import dev.tern.conformance.v1.ConformancePayload.RequestInfo;
import dev.tern.conformance.v1.ConformanceServiceTern;
import dev.tern.conformance.v1.Error;
import dev.tern.conformance.v1.IdempotentUnaryRequest;
import dev.tern.conformance.v1.IdempotentUnaryResponse;
import dev.tern.conformance.v1.ServerStreamRequest;
import dev.tern.conformance.v1.ServerStreamResponse;
import dev.tern.conformance.v1.StreamResponseDefinition;
import dev.tern.conformance.v1.UnaryRequest;
import dev.tern.conformance.v1.UnaryResponse;
import dev.tern.conformance.v1.UnaryResponseDefinition;
import dev.tern.stub.BlockingServerReader;
import dev.tern.stub.BlockingServerWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code connectrpc.conformance.v1.ConformanceService} as the runner's server guide
 * (docs/testing_servers.md) describes it, written with Tern's generated blocking service API: each
 * call's method runs on a thread of its own, so the requested delays are plain sleeps (interrupted
 * when the call is cancelled or times out). {@code Unimplemented} keeps the generated default,
 * which answers UNIMPLEMENTED. Response headers and trailers go through {@link CallMetadata}.
 *
 * <p>Thread-safety: stateless; every call's state lives on its method's stack.
 */
final class ConformanceServiceImpl implements ConformanceServiceTern.BlockingService {
  /** The service with the interceptor its methods need, ready to add to a server. */
  static ServerServiceDefinition definition() {
    return ServerInterceptors.intercept(
        new ConformanceServiceImpl().bindService(), CallMetadata.INTERCEPTOR);
  }

  @Override
  public UnaryResponse unary(UnaryRequest request) throws Exception {
    return UnaryResponse.newBuilder()
        .setPayload(
            answer(
                request.hasResponseDefinition() ? request.getResponseDefinition() : null,
                List.of(Any.pack(request))))
        .build();
  }

  @Override
  public IdempotentUnaryResponse idempotentUnary(IdempotentUnaryRequest request) throws Exception {
    return IdempotentUnaryResponse.newBuilder()
        .setPayload(
            answer(
                request.hasResponseDefinition() ? request.getResponseDefinition() : null,
                List.of(Any.pack(request))))
        .build();
  }

  @Override
  public ClientStreamResponse clientStream(BlockingServerReader<ClientStreamRequest> requests)
      throws Exception {
    UnaryResponseDefinition definition = null;
    List<Any> received = new ArrayList<>();
    ClientStreamRequest request;
    while ((request = requests.read()) != null) {
      // Only the first request's definition counts.
      if (received.isEmpty() && request.hasResponseDefinition()) {
        definition = request.getResponseDefinition();
      }
      received.add(Any.pack(request));
    }
    return ClientStreamResponse.newBuilder().setPayload(answer(definition, received)).build();
  }

  @Override
  public void serverStream(
      ServerStreamRequest request, BlockingServerWriter<ServerStreamResponse> responses)
      throws Exception {
    if (!request.hasResponseDefinition()) {
      return;
    }
    StreamResponseDefinition definition = request.getResponseDefinition();
    CallMetadata call = CallMetadata.current();
    call.sendHeaders(definition.getResponseHeadersList());
    call.addTrailers(definition.getResponseTrailersList());
    RequestInfo info = requestInfo(List.of(Any.pack(request)));
    int sent = 0;
    for (ByteString data : definition.getResponseDataList()) {
      sleep(definition.getResponseDelayMs());
      ConformancePayload.Builder payload = ConformancePayload.newBuilder().setData(data);
      if (sent == 0) {
        payload.setRequestInfo(info);
      }
      responses.write(ServerStreamResponse.newBuilder().setPayload(payload).build());
      sent++;
    }
    if (definition.hasError()) {
      throw failure(definition.getError(), sent == 0 ? info : null);
    }
  }

  @Override
  public void bidiStream(
      BlockingServerReader<BidiStreamRequest> requests,
      BlockingServerWriter<BidiStreamResponse> responses)
      throws Exception {
    CallMetadata call = CallMetadata.current();
    StreamResponseDefinition definition = null;
    boolean fullDuplex = false;
    boolean first = true;
    List<Any> received = new ArrayList<>();
    int sent = 0;
    BidiStreamRequest request;
    while ((request = requests.read()) != null) {
      received.add(Any.pack(request));
      if (first) {
        first = false;
        fullDuplex = request.getFullDuplex();
        if (request.hasResponseDefinition()) {
          definition = request.getResponseDefinition();
          if (fullDuplex) {
            call.sendHeaders(definition.getResponseHeadersList());
          } else {
            // Half duplex writes nothing before the upload ends: an HTTP/1.1 server may stop
            // reading a request once its response starts.
            call.holdHeaders(definition.getResponseHeadersList());
          }
          call.addTrailers(definition.getResponseTrailersList());
        }
      }
      if (fullDuplex) {
        if (definition == null || sent >= definition.getResponseDataCount()) {
          // Nothing left to answer with: end the call (with the error, if any).
          break;
        }
        // Each response echoes the requests since the previous one; the first also the headers.
        RequestInfo info =
            sent == 0
                ? requestInfo(received)
                : RequestInfo.newBuilder().addAllRequests(received).build();
        sleep(definition.getResponseDelayMs());
        responses.write(
            BidiStreamResponse.newBuilder()
                .setPayload(
                    ConformancePayload.newBuilder()
                        .setData(definition.getResponseData(sent))
                        .setRequestInfo(info))
                .build());
        sent++;
        received.clear();
      }
    }
    if (definition == null) {
      return;
    }
    // Half duplex sends everything now; full duplex any responses beyond the requests it answered.
    for (; sent < definition.getResponseDataCount(); sent++) {
      sleep(definition.getResponseDelayMs());
      ConformancePayload.Builder payload =
          ConformancePayload.newBuilder().setData(definition.getResponseData(sent));
      if (sent == 0) {
        payload.setRequestInfo(requestInfo(received));
      }
      responses.write(BidiStreamResponse.newBuilder().setPayload(payload).build());
    }
    if (definition.hasError()) {
      throw failure(definition.getError(), sent == 0 ? requestInfo(received) : null);
    }
  }

  /**
   * The single answer of a unary or client-streaming call: the requested headers at once, the
   * trailers for the end, the delay, then the payload echoing the request, or the requested error
   * with the request info appended to its details. No definition: just the echo.
   */
  private static ConformancePayload answer(UnaryResponseDefinition definition, List<Any> requests)
      throws StatusException, InterruptedException {
    RequestInfo info = requestInfo(requests);
    if (definition == null) {
      return ConformancePayload.newBuilder().setRequestInfo(info).build();
    }
    CallMetadata call = CallMetadata.current();
    call.sendHeaders(definition.getResponseHeadersList());
    call.addTrailers(definition.getResponseTrailersList());
    sleep(definition.getResponseDelayMs());
    if (definition.hasError()) {
      throw failure(definition.getError(), info);
    }
    return ConformancePayload.newBuilder()
        .setRequestInfo(info)
        .setData(definition.getResponseData())
        .build();
  }

  /**
   * What the server saw of the call: its request headers, its timeout (the time its deadline left
   * when it started), and {@code requests}.
   */
  private static RequestInfo requestInfo(List<Any> requests) {
    CallMetadata call = CallMetadata.current();
    RequestInfo.Builder info =
        RequestInfo.newBuilder()
            .addAllRequestHeaders(HeaderLists.fromMetadata(call.requestHeaders()))
            .addAllRequests(requests);
    if (call.timeoutMillis() != null) {
      info.setTimeoutMs(call.timeoutMillis());
    }
    return info.build();
  }

  /** The requested error, with {@code info} (when not null) appended to its details. */
  private static StatusException failure(Error error, RequestInfo info) {
    Metadata trailers = new Metadata();
    Status status;
    try {
      status = ConformanceErrors.toStatus(error, info == null ? null : Any.pack(info), trailers);
    } catch (IllegalArgumentException e) {
      return Status.INVALID_ARGUMENT
          .withDescription("the response definition's error is invalid: " + e.getMessage())
          .asException();
    }
    return status.asException(trailers);
  }

  private static void sleep(int millis) throws InterruptedException {
    if (millis > 0) {
      Thread.sleep(millis);
    }
  }
}
