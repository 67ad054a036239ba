package dev.tern.interop;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.ByteString;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptor;
import dev.tern.ForwardingClientCall;
import dev.tern.ForwardingClientCallListener;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.interop.testing.BoolValue;
import dev.tern.interop.testing.EchoStatus;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.ResponseParameters;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.StreamingInputCallRequest;
import dev.tern.interop.testing.StreamingInputCallResponse;
import dev.tern.interop.testing.StreamingOutputCallRequest;
import dev.tern.interop.testing.StreamingOutputCallResponse;
import dev.tern.interop.testing.TestServiceTern;
import dev.tern.interop.testing.UnimplementedServiceTern;
import dev.tern.stub.ClientCallStreamObserver;
import dev.tern.stub.MetadataUtils;
import dev.tern.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The interop test cases, as the project's interop doc describes them, run by {@link InteropClient}
 * against any TestService server. Each case throws {@link AssertionError} (or a {@link
 * StatusRuntimeException}) on failure. Not thread-safe: one case at a time.
 */
final class InteropCases {
  /** Each call gets this long; generous, since the peer may be a cold JVM. */
  private static final long CALL_TIMEOUT_SECONDS = 30;

  private static final int[] REQUEST_SIZES = {27182, 8, 1828, 45904};
  private static final int[] RESPONSE_SIZES = {31415, 9, 2653, 58979};

  private static final String SPECIAL_MESSAGE =
      "\t\ntest with whitespace\r\nand Unicode BMP \u263A and non-BMP \uD83D\uDE08\t\n";

  private final Channel channel;
  private final Supplier<ManagedChannel> newChannel;
  private final SoakConfig soak;
  private final ResponseCompressionRecorder compression = new ResponseCompressionRecorder();

  /**
   * @param channel the channel for every case but channel_soak; its gzip decompressor must be a
   *     {@link CompressionProbe} so the compressed-response cases can see how responses arrived
   * @param newChannel makes a fresh channel like {@code channel} (channel_soak), the caller's to
   *     shut down: this class shuts down each one it makes
   * @param soak the soak cases' settings (the {@code soak_*} flags)
   */
  InteropCases(Channel channel, Supplier<ManagedChannel> newChannel, SoakConfig soak) {
    this.channel = channel;
    this.newChannel = newChannel;
    this.soak = soak;
  }

  /** Every case this client runs, in the order {@code --test_case=all} runs them. */
  static final List<String> ALL =
      List.of(
          "empty_unary",
          "large_unary",
          "client_compressed_unary",
          "server_compressed_unary",
          "client_streaming",
          "client_compressed_streaming",
          "server_streaming",
          "server_compressed_streaming",
          "ping_pong",
          "empty_stream",
          "custom_metadata",
          "status_code_and_message",
          "special_status_message",
          "unimplemented_method",
          "unimplemented_service",
          "cancel_after_begin",
          "cancel_after_first_response",
          "timeout_on_sleeping_server",
          "very_large_request",
          "rpc_soak",
          "channel_soak");

  /**
   * Runs one case by name.
   *
   * @throws IllegalArgumentException for a name not in {@link #ALL}
   */
  void run(String name) throws Exception {
    switch (name) {
      case "empty_unary" -> emptyUnary();
      case "large_unary" -> largeUnary(channel);
      case "client_compressed_unary" -> clientCompressedUnary();
      case "server_compressed_unary" -> serverCompressedUnary();
      case "client_streaming" -> clientStreaming();
      case "client_compressed_streaming" -> clientCompressedStreaming();
      case "server_streaming" -> serverStreaming();
      case "server_compressed_streaming" -> serverCompressedStreaming();
      case "ping_pong" -> pingPong();
      case "empty_stream" -> emptyStream();
      case "custom_metadata" -> customMetadata();
      case "status_code_and_message" -> statusCodeAndMessage("test status message");
      case "special_status_message" -> statusCodeAndMessage(SPECIAL_MESSAGE);
      case "unimplemented_method" -> unimplementedMethod();
      case "unimplemented_service" -> unimplementedService();
      case "cancel_after_begin" -> cancelAfterBegin();
      case "cancel_after_first_response" -> cancelAfterFirstResponse();
      case "timeout_on_sleeping_server" -> timeoutOnSleepingServer();
      case "very_large_request" -> veryLargeRequest();
      case "rpc_soak" -> rpcSoak();
      case "channel_soak" -> channelSoak();
      default -> throw new IllegalArgumentException("unknown test case: " + name);
    }
  }

  // ----------------------------------------------------------------------------- the cases

  private void emptyUnary() {
    Empty response = blocking(channel).emptyCall(Empty.getDefaultInstance());
    check(response.equals(Empty.getDefaultInstance()), "EmptyCall answered " + response);
  }

  private static void largeUnary(Channel on) {
    SimpleResponse response = blocking(on).unaryCall(largeRequest());
    checkZeros(response.getPayload(), 314159, "response");
  }

  private void clientCompressedUnary() {
    SimpleRequest.Builder request = largeRequest().toBuilder();
    // Probe: the server must notice a message claimed compressed that was not.
    StatusRuntimeException probe =
        expectFailure(
            () -> blocking(channel).unaryCall(request.setExpectCompressed(bool(true)).build()));
    checkCode(probe, Status.Code.INVALID_ARGUMENT, "uncompressed message sent as compressed");

    SimpleResponse compressed =
        blocking(channel)
            .withCompression("gzip")
            .unaryCall(request.setExpectCompressed(bool(true)).build());
    checkZeros(compressed.getPayload(), 314159, "response to the compressed request");

    SimpleResponse plain =
        blocking(channel).unaryCall(request.setExpectCompressed(bool(false)).build());
    checkZeros(plain.getPayload(), 314159, "response to the uncompressed request");
  }

  private void serverCompressedUnary() {
    for (boolean compressed : new boolean[] {true, false}) {
      compression.reset();
      SimpleResponse response =
          blocking(channel)
              .withInterceptors(compression)
              .unaryCall(
                  largeRequest().toBuilder().setResponseCompressed(bool(compressed)).build());
      checkZeros(response.getPayload(), 314159, "response");
      check(
          compression.marks().equals(List.of(compressed)),
          "response_compressed=" + compressed + " but responses arrived " + compression.marks());
    }
  }

  private void clientStreaming() throws Exception {
    CompletableFuture<StreamingInputCallResponse> response = new CompletableFuture<>();
    StreamObserver<StreamingInputCallRequest> requests =
        async(channel).streamingInputCall(completing(response));
    for (int size : REQUEST_SIZES) {
      requests.onNext(StreamingInputCallRequest.newBuilder().setPayload(zeros(size)).build());
    }
    requests.onCompleted();
    int total = await(response).getAggregatedPayloadSize();
    check(total == 74922, "aggregated_payload_size " + total + ", expected 74922");
  }

  private void clientCompressedStreaming() throws Exception {
    // Probe: first message claims compression but is sent plain.
    CompletableFuture<StreamingInputCallResponse> probe = new CompletableFuture<>();
    StreamObserver<StreamingInputCallRequest> probeRequests =
        async(channel).streamingInputCall(completing(probe));
    probeRequests.onNext(
        StreamingInputCallRequest.newBuilder()
            .setExpectCompressed(bool(true))
            .setPayload(zeros(27182))
            .build());
    probeRequests.onCompleted();
    checkCode(
        expectFailure(() -> await(probe)),
        Status.Code.INVALID_ARGUMENT,
        "uncompressed message sent as compressed");

    CompletableFuture<StreamingInputCallResponse> response = new CompletableFuture<>();
    ClientCallStreamObserver<StreamingInputCallRequest> requests =
        (ClientCallStreamObserver<StreamingInputCallRequest>)
            async(channel).withCompression("gzip").streamingInputCall(completing(response));
    requests.setMessageCompression(true);
    requests.onNext(
        StreamingInputCallRequest.newBuilder()
            .setExpectCompressed(bool(true))
            .setPayload(zeros(27182))
            .build());
    requests.setMessageCompression(false);
    requests.onNext(
        StreamingInputCallRequest.newBuilder()
            .setExpectCompressed(bool(false))
            .setPayload(zeros(45904))
            .build());
    requests.onCompleted();
    int total = await(response).getAggregatedPayloadSize();
    check(total == 73086, "aggregated_payload_size " + total + ", expected 73086");
  }

  private void serverStreaming() {
    StreamingOutputCallRequest.Builder request = StreamingOutputCallRequest.newBuilder();
    for (int size : RESPONSE_SIZES) {
      request.addResponseParameters(ResponseParameters.newBuilder().setSize(size));
    }
    List<Integer> sizes = new ArrayList<>();
    for (Iterator<StreamingOutputCallResponse> it =
            blocking(channel).streamingOutputCall(request.build());
        it.hasNext(); ) {
      StreamingOutputCallResponse response = it.next();
      checkZeros(response.getPayload(), RESPONSE_SIZES[Math.min(sizes.size(), 3)], "response");
      sizes.add(response.getPayload().getBody().size());
    }
    check(sizes.size() == RESPONSE_SIZES.length, "got " + sizes.size() + " responses, expected 4");
  }

  private void serverCompressedStreaming() {
    compression.reset();
    StreamingOutputCallRequest request =
        StreamingOutputCallRequest.newBuilder()
            .addResponseParameters(
                ResponseParameters.newBuilder().setSize(31415).setCompressed(bool(true)))
            .addResponseParameters(
                ResponseParameters.newBuilder().setSize(92653).setCompressed(bool(false)))
            .build();
    List<Integer> sizes = new ArrayList<>();
    blocking(channel)
        .withInterceptors(compression)
        .streamingOutputCall(request)
        .forEachRemaining(r -> sizes.add(r.getPayload().getBody().size()));
    check(sizes.equals(List.of(31415, 92653)), "response sizes " + sizes);
    check(
        compression.marks().equals(List.of(true, false)),
        "expected the first response compressed and the second not, got " + compression.marks());
  }

  private void pingPong() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        async(channel).fullDuplexCall(queueing(responses));
    for (int i = 0; i < REQUEST_SIZES.length; i++) {
      requests.onNext(pingPongRequest(REQUEST_SIZES[i], RESPONSE_SIZES[i]));
      Object next = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      check(next instanceof StreamingOutputCallResponse, "round " + i + " got " + next);
      checkZeros(((StreamingOutputCallResponse) next).getPayload(), RESPONSE_SIZES[i], "response");
    }
    requests.onCompleted();
    Object end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(end == Status.OK, "expected the stream to end OK, got " + end);
  }

  private void emptyStream() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    async(channel).fullDuplexCall(queueing(responses)).onCompleted();
    Object end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(end == Status.OK, "expected no responses and OK, got " + end);
  }

  private void customMetadata() throws Exception {
    Metadata extra = new Metadata();
    extra.put(InteropServerInterceptors.ECHO_INITIAL, "test_initial_metadata_value");
    byte[] trailing = {(byte) 0xab, (byte) 0xab, (byte) 0xab};
    extra.put(InteropServerInterceptors.ECHO_TRAILING, trailing);

    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    ClientInterceptor attach = MetadataUtils.newAttachHeadersInterceptor(extra);
    ClientInterceptor capture = MetadataUtils.newCaptureMetadataInterceptor(headers, trailers);

    blocking(channel)
        .withInterceptors(attach, capture)
        .unaryCall(largeRequest().toBuilder().setResponseSize(1).build());
    checkEchoed(headers.get(), trailers.get(), trailing, "UnaryCall");

    headers.set(null);
    trailers.set(null);
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        async(channel).withInterceptors(attach, capture).fullDuplexCall(queueing(responses));
    requests.onNext(pingPongRequest(27182, 31415));
    requests.onCompleted();
    Object first = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(first instanceof StreamingOutputCallResponse, "FullDuplexCall got " + first);
    Object end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(end == Status.OK, "FullDuplexCall ended " + end);
    checkEchoed(headers.get(), trailers.get(), trailing, "FullDuplexCall");
  }

  private void statusCodeAndMessage(String message) throws Exception {
    EchoStatus status = EchoStatus.newBuilder().setCode(2).setMessage(message).build();
    StatusRuntimeException unary =
        expectFailure(
            () ->
                blocking(channel)
                    .unaryCall(SimpleRequest.newBuilder().setResponseStatus(status).build()));
    checkStatus(unary.getStatus(), message, "UnaryCall");

    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        async(channel).fullDuplexCall(queueing(responses));
    requests.onNext(StreamingOutputCallRequest.newBuilder().setResponseStatus(status).build());
    requests.onCompleted();
    Object end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(end instanceof Status, "FullDuplexCall got " + end);
    checkStatus((Status) end, message, "FullDuplexCall");
  }

  private void unimplementedMethod() {
    checkCode(
        expectFailure(() -> blocking(channel).unimplementedCall(Empty.getDefaultInstance())),
        Status.Code.UNIMPLEMENTED,
        "TestService/UnimplementedCall");
  }

  private void unimplementedService() {
    checkCode(
        expectFailure(
            () ->
                UnimplementedServiceTern.newBlockingStub(channel)
                    .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .unimplementedCall(Empty.getDefaultInstance())),
        Status.Code.UNIMPLEMENTED,
        "UnimplementedService/UnimplementedCall");
  }

  private void cancelAfterBegin() {
    CompletableFuture<StreamingInputCallResponse> response = new CompletableFuture<>();
    ClientCallStreamObserver<StreamingInputCallRequest> requests =
        (ClientCallStreamObserver<StreamingInputCallRequest>)
            async(channel).streamingInputCall(completing(response));
    requests.cancel("cancel_after_begin", null);
    checkCode(expectFailure(() -> await(response)), Status.Code.CANCELLED, "cancelled call");
  }

  private void cancelAfterFirstResponse() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    ClientCallStreamObserver<StreamingOutputCallRequest> requests =
        (ClientCallStreamObserver<StreamingOutputCallRequest>)
            async(channel).fullDuplexCall(queueing(responses));
    requests.onNext(pingPongRequest(27182, 31415));
    Object first = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(first instanceof StreamingOutputCallResponse, "first response: " + first);
    requests.cancel("cancel_after_first_response", null);
    Object end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    check(
        end instanceof Status s && s.getCode() == Status.Code.CANCELLED,
        "expected CANCELLED, got " + end);
  }

  private void timeoutOnSleepingServer() throws Exception {
    BlockingQueue<Object> responses = new LinkedBlockingQueue<>();
    StreamObserver<StreamingOutputCallRequest> requests =
        TestServiceTern.newStub(channel)
            .withDeadlineAfter(1, TimeUnit.MILLISECONDS)
            .fullDuplexCall(queueing(responses));
    try {
      requests.onNext(StreamingOutputCallRequest.newBuilder().setPayload(zeros(27182)).build());
    } catch (IllegalStateException e) {
      // The deadline may already have ended the call; that is the expected outcome too.
    }
    Object end;
    do {
      end = responses.poll(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } while (end instanceof StreamingOutputCallResponse);
    check(
        end instanceof Status s && s.getCode() == Status.Code.DEADLINE_EXCEEDED,
        "expected DEADLINE_EXCEEDED, got " + end);
  }

  private void veryLargeRequest() {
    // Just under the 4 MiB default limit once the protobuf framing is added.
    int size = 4 * 1024 * 1024 - 64;
    SimpleResponse response =
        blocking(channel)
            .unaryCall(
                SimpleRequest.newBuilder().setResponseSize(10).setPayload(zeros(size)).build());
    checkZeros(response.getPayload(), 10, "response");
  }

  private void rpcSoak() throws InterruptedException {
    SoakCase.run(soak, () -> soakCall(channel));
  }

  private void channelSoak() throws InterruptedException {
    SoakCase.run(
        soak,
        () -> {
          ManagedChannel fresh = newChannel.get();
          try {
            soakCall(fresh);
          } finally {
            fresh.shutdownNow();
            fresh.awaitTermination(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
          }
        });
  }

  /** A soak iteration's call: large_unary with the soak's sizes, under the iteration's bound. */
  private void soakCall(Channel on) {
    SimpleResponse response =
        TestServiceTern.newBlockingStub(on)
            .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .unaryCall(
                SimpleRequest.newBuilder()
                    .setResponseSize(soak.responseSize())
                    .setPayload(zeros(soak.requestSize()))
                    .build());
    checkZeros(response.getPayload(), soak.responseSize(), "response");
  }

  // ---------------------------------------------------------------------------- helpers

  private static TestServiceTern.TestServiceBlockingStub blocking(Channel on) {
    return TestServiceTern.newBlockingStub(on)
        .withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static TestServiceTern.TestServiceStub async(Channel on) {
    return TestServiceTern.newStub(on).withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static SimpleRequest largeRequest() {
    return SimpleRequest.newBuilder().setResponseSize(314159).setPayload(zeros(271828)).build();
  }

  private static StreamingOutputCallRequest pingPongRequest(int requestSize, int responseSize) {
    return StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(responseSize))
        .setPayload(zeros(requestSize))
        .build();
  }

  private static Payload zeros(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  private static BoolValue bool(boolean value) {
    return BoolValue.newBuilder().setValue(value).build();
  }

  /** An observer that completes {@code future} with the single response or the failure. */
  private static <T> StreamObserver<T> completing(CompletableFuture<T> future) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        future.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        future.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        future.completeExceptionally(new AssertionError("the call ended with no response"));
      }
    };
  }

  /**
   * An observer that queues each response, then the final {@link Status} ({@link Status#OK} once
   * the call completes). Also used by the HTTP/3 peer tests.
   */
  static <T> StreamObserver<T> queueing(BlockingQueue<Object> queue) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        queue.add(value);
      }

      @Override
      public void onError(Throwable t) {
        queue.add(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        queue.add(Status.OK);
      }
    };
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    try {
      return future.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + CALL_TIMEOUT_SECONDS + " s", e);
    }
  }

  /** Something that must fail with a status. */
  private interface Failing {
    void run() throws Exception;
  }

  private static StatusRuntimeException expectFailure(Failing call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected a status failure, got " + e, e);
    }
    throw new AssertionError("expected the call to fail, but it succeeded");
  }

  private static void checkCode(StatusRuntimeException e, Status.Code code, String what) {
    check(e.getStatus().getCode() == code, what + ": expected " + code + ", got " + e.getStatus());
  }

  private static void checkStatus(Status status, String message, String call) {
    check(status.getCode() == Status.Code.UNKNOWN, call + ": expected UNKNOWN, got " + status);
    check(
        message.equals(status.getDescription()),
        call + ": message " + quote(status.getDescription()) + ", expected " + quote(message));
  }

  private static void checkEchoed(
      Metadata headers, Metadata trailers, byte[] trailing, String call) {
    check(headers != null, call + ": no response headers");
    check(
        "test_initial_metadata_value".equals(headers.get(InteropServerInterceptors.ECHO_INITIAL)),
        call + ": initial metadata not echoed, headers " + headers);
    check(trailers != null, call + ": no trailers");
    check(
        java.util.Arrays.equals(trailing, trailers.get(InteropServerInterceptors.ECHO_TRAILING)),
        call + ": trailing metadata not echoed, trailers " + trailers);
  }

  private static void checkZeros(Payload payload, int size, String what) {
    ByteString body = payload.getBody();
    check(body.size() == size, what + " payload has " + body.size() + " bytes, expected " + size);
    for (int i = 0; i < size; i++) {
      if (body.byteAt(i) != 0) {
        throw new AssertionError(what + " payload byte " + i + " is not zero");
      }
    }
  }

  private static String quote(String s) {
    return s == null
        ? "null"
        : "\"" + s.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "\"";
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }

  /**
   * Records, per response message, whether it arrived compressed (see {@link CompressionProbe}).
   * Thread-safe: the marks list is guarded by itself.
   */
  private static final class ResponseCompressionRecorder implements ClientInterceptor {
    @GuardedBy("marks")
    private final List<Boolean> marks = new ArrayList<>();

    void reset() {
      synchronized (marks) {
        marks.clear();
      }
    }

    List<Boolean> marks() {
      synchronized (marks) {
        return List.copyOf(marks);
      }
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(
          next.newCall(method, callOptions)) {
        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onMessage(RespT message) {
                  boolean compressed = CompressionProbe.takeMark();
                  synchronized (marks) {
                    marks.add(compressed);
                  }
                  super.onMessage(message);
                }
              },
              headers);
        }
      };
    }
  }
}
