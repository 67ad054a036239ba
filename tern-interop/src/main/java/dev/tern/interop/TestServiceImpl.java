package dev.tern.interop;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.ByteString;
import dev.tern.Status;
import dev.tern.interop.testing.EchoStatus;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.Payload;
import dev.tern.interop.testing.PayloadType;
import dev.tern.interop.testing.ResponseParameters;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.StreamingInputCallRequest;
import dev.tern.interop.testing.StreamingInputCallResponse;
import dev.tern.interop.testing.StreamingOutputCallRequest;
import dev.tern.interop.testing.StreamingOutputCallResponse;
import dev.tern.interop.testing.TestServiceTern;
import dev.tern.stub.ServerCallStreamObserver;
import dev.tern.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code grpc.testing.TestService} as the interop cases expect it (see the project's interop doc):
 * payloads of the requested sizes, requested statuses, per-message response compression, and {@code
 * interval_us} pauses. {@code UnimplementedCall} is left to the base class, which answers
 * UNIMPLEMENTED. Metadata echo and the {@code expect_compressed} checks live in {@link
 * InteropServerInterceptors}.
 *
 * <p>Thread-safety: stateless apart from the shared scheduler; each call's state stays in its own
 * observer, touched by one thread at a time (the call's serialized callbacks, then the scheduler
 * chain that replaces them).
 */
public final class TestServiceImpl extends TestServiceTern.TestServiceImplBase {
  private final ScheduledExecutorService scheduler;

  /** A service that schedules its {@code interval_us} pauses on {@code scheduler}. */
  public TestServiceImpl(ScheduledExecutorService scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void emptyCall(Empty request, StreamObserver<Empty> responseObserver) {
    responseObserver.onNext(Empty.getDefaultInstance());
    responseObserver.onCompleted();
  }

  @Override
  public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
    if (failWith(request.getResponseStatus(), responseObserver)) {
      return;
    }
    ServerCallStreamObserver<SimpleResponse> call =
        (ServerCallStreamObserver<SimpleResponse>) responseObserver;
    if (request.getResponseCompressed().getValue()) {
      call.setCompression("gzip");
    }
    call.setMessageCompression(request.getResponseCompressed().getValue());
    SimpleResponse.Builder response =
        SimpleResponse.newBuilder().setPayload(zeros(request.getResponseSize()));
    if (request.getFillServerId()) {
      response.setServerId("tern-interop-server");
    }
    call.onNext(response.build());
    call.onCompleted();
  }

  @Override
  public void cacheableUnaryCall(
      SimpleRequest request, StreamObserver<SimpleResponse> responseObserver) {
    unaryCall(request, responseObserver);
  }

  @Override
  public void streamingOutputCall(
      StreamingOutputCallRequest request,
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseSender sender = new ResponseSender(responseObserver);
    sender.add(request);
    sender.finish();
  }

  @Override
  public StreamObserver<StreamingInputCallRequest> streamingInputCall(
      StreamObserver<StreamingInputCallResponse> responseObserver) {
    return new StreamObserver<>() {
      private int aggregatedSize;

      @Override
      public void onNext(StreamingInputCallRequest request) {
        aggregatedSize += request.getPayload().getBody().size();
      }

      @Override
      public void onError(Throwable t) {
        // The client cancelled: nothing to answer.
      }

      @Override
      public void onCompleted() {
        responseObserver.onNext(
            StreamingInputCallResponse.newBuilder()
                .setAggregatedPayloadSize(aggregatedSize)
                .build());
        responseObserver.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> fullDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseSender sender = new ResponseSender(responseObserver);
    return new StreamObserver<>() {
      @Override
      public void onNext(StreamingOutputCallRequest request) {
        sender.add(request);
      }

      @Override
      public void onError(Throwable t) {
        // The client cancelled: nothing to answer.
      }

      @Override
      public void onCompleted() {
        sender.finish();
      }
    };
  }

  @Override
  public StreamObserver<StreamingOutputCallRequest> halfDuplexCall(
      StreamObserver<StreamingOutputCallResponse> responseObserver) {
    ResponseSender sender = new ResponseSender(responseObserver);
    List<StreamingOutputCallRequest> requests = new ArrayList<>();
    return new StreamObserver<>() {
      @Override
      public void onNext(StreamingOutputCallRequest request) {
        requests.add(request);
      }

      @Override
      public void onError(Throwable t) {
        // The client cancelled: nothing to answer.
      }

      @Override
      public void onCompleted() {
        requests.forEach(sender::add);
        sender.finish();
      }
    };
  }

  /**
   * Sends the responses that requests ask for, in order, pausing {@code interval_us} before each on
   * the scheduler rather than blocking a server thread, and ends the call once {@link #finish} was
   * called and everything is sent, or at once with a request's {@code response_status}.
   *
   * <p>Thread-safety: {@link #add} and {@link #finish} come from the call's serialized callbacks,
   * sends from there or from the scheduler. {@code lock} guards the queue and the flags; at most
   * one "drain" runs at a time ({@code draining}), so the call's observer is never used
   * concurrently. The observer is never called while holding the lock.
   */
  private final class ResponseSender {
    private final ServerCallStreamObserver<StreamingOutputCallResponse> call;
    private final Object lock = new Object();

    /** ResponseParameters to send, an encoding name to switch to, or an EchoStatus to end with. */
    @GuardedBy("lock")
    private final Queue<Object> pending = new ArrayDeque<>();

    @GuardedBy("lock")
    private boolean draining;

    @GuardedBy("lock")
    private boolean finishRequested;

    @GuardedBy("lock")
    private boolean ended;

    ResponseSender(StreamObserver<StreamingOutputCallResponse> responseObserver) {
      this.call = (ServerCallStreamObserver<StreamingOutputCallResponse>) responseObserver;
    }

    void add(StreamingOutputCallRequest request) {
      synchronized (lock) {
        // Compression is chosen per call before the first compressed response goes out.
        if (request.getResponseParametersList().stream()
            .anyMatch(p -> p.getCompressed().getValue())) {
          pending.add("gzip");
        }
        pending.addAll(request.getResponseParametersList());
        if (request.getResponseStatus().getCode() != 0) {
          pending.add(request.getResponseStatus());
        }
      }
      drain();
    }

    void finish() {
      synchronized (lock) {
        finishRequested = true;
      }
      drain();
    }

    private void drain() {
      while (true) {
        Object next;
        synchronized (lock) {
          if (draining || ended) {
            return;
          }
          next = pending.poll();
          if (next == null && !finishRequested) {
            return;
          }
          draining = true;
          if (next == null || next instanceof EchoStatus) {
            ended = true;
          }
        }
        if (next == null) {
          call.onCompleted();
          return;
        }
        if (next instanceof EchoStatus status) {
          failWith(status, call);
          return;
        }
        if (next instanceof String encoding) {
          call.setCompression(encoding);
        } else {
          ResponseParameters params = (ResponseParameters) next;
          if (params.getIntervalUs() > 0) {
            scheduler.schedule(
                () -> sendAndContinue(params), params.getIntervalUs(), TimeUnit.MICROSECONDS);
            return;
          }
          sendOne(call, params);
        }
        synchronized (lock) {
          draining = false;
        }
      }
    }

    private void sendAndContinue(ResponseParameters params) {
      sendOne(call, params);
      synchronized (lock) {
        draining = false;
      }
      drain();
    }
  }

  private static void sendOne(
      ServerCallStreamObserver<StreamingOutputCallResponse> call, ResponseParameters params) {
    if (call.isCancelled()) {
      return;
    }
    call.setMessageCompression(params.getCompressed().getValue());
    call.onNext(
        StreamingOutputCallResponse.newBuilder().setPayload(zeros(params.getSize())).build());
  }

  /** Ends the call with {@code status} if it asks for a non-OK code; returns whether it did. */
  private static boolean failWith(EchoStatus status, StreamObserver<?> responseObserver) {
    if (status.getCode() == 0) {
      return false;
    }
    responseObserver.onError(
        Status.fromCodeValue(status.getCode())
            .withDescription(status.getMessage())
            .asRuntimeException());
    return true;
  }

  static Payload zeros(int size) {
    return Payload.newBuilder()
        .setType(PayloadType.COMPRESSABLE)
        .setBody(ByteString.copyFrom(new byte[size]))
        .build();
  }
}
