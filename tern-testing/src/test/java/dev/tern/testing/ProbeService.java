package dev.tern.testing;

import dev.tern.Attributes;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A service whose handlers let a test look inside the server: calls that never answer (for
 * deadlines, cancellation and shutdown), a handler that throws, one that reports the call's
 * attributes, and two for flow control. Built on {@link ServerCall} directly. One instance per
 * test; thread-safe (handlers run on server threads, the test reads from its own).
 */
public final class ProbeService {
  /** The service name. */
  public static final String SERVICE_NAME = "tern.testing.Probe";

  /** Never answers; see {@link #awaitHangingCall()}. */
  public static final MethodDescriptor<String, String> HANG = method("Hang", MethodType.UNARY);

  /** Its handler throws {@link #THROWN} from {@code startCall}. */
  public static final MethodDescriptor<String, String> THROW = method("Throw", MethodType.UNARY);

  /** Answers "ok" after recording the call's attributes; see {@link #awaitAttributes()}. */
  public static final MethodDescriptor<String, String> ATTRIBUTES =
      method("Attributes", MethodType.UNARY);

  /**
   * The request is a count N; answers with N messages of {@link #SOURCE_MESSAGE_SIZE} characters,
   * sent only while the call is ready, recording how far it got ahead of the client (which reports
   * what it received through {@link #clientReceivedOne()}).
   */
  public static final MethodDescriptor<String, String> SOURCE =
      method("Source", MethodType.SERVER_STREAMING);

  /** Requests nothing by itself: the test drives it; see {@link #awaitSinkCall()}. */
  public static final MethodDescriptor<String, String> SINK =
      method("Sink", MethodType.CLIENT_STREAMING);

  /** What the {@link #THROW} handler throws. */
  public static final String THROWN = "handler failed on purpose";

  /** Size of each {@link #SOURCE} message. */
  public static final int SOURCE_MESSAGE_SIZE = 16 * 1024;

  /** A call to {@link #HANG}, as the server saw it. */
  public record HangingCall(
      ServerCall<String, String> call,
      Metadata headers,
      Deadline contextDeadline,
      CountDownLatch onCancel,
      CountDownLatch contextCancelled) {
    /** Waits for the listener's {@code onCancel}. */
    public void awaitOnCancel() {
      Await.await(onCancel, "onCancel of the hanging call");
    }

    /** Waits for the call's {@link Context} to be cancelled. */
    public void awaitContextCancelled() {
      Await.await(contextCancelled, "the hanging call's Context to be cancelled");
    }
  }

  /** A call to {@link #SINK}: the call (drive it from the test thread only) and its events. */
  public record SinkCall(
      ServerCall<String, String> call,
      BlockingQueue<String> messages,
      CountDownLatch halfClosed,
      CountDownLatch done) {
    /** Waits for the next request message. */
    public String awaitMessage() {
      return Await.poll(messages, "a message on the sink call");
    }

    /** Waits for the client to half-close. */
    public void awaitHalfClosed() {
      Await.await(halfClosed, "the client to half-close the sink call");
    }

    /** Waits for onComplete or onCancel. */
    public void awaitDone() {
      Await.await(done, "the sink call to complete");
    }
  }

  private final BlockingQueue<HangingCall> hangingCalls = new LinkedBlockingQueue<>();
  private final BlockingQueue<Attributes> attributes = new LinkedBlockingQueue<>();
  private final BlockingQueue<SinkCall> sinkCalls = new LinkedBlockingQueue<>();
  private final AtomicInteger sourceSent = new AtomicInteger();
  private final AtomicInteger clientReceived = new AtomicInteger();
  private final AtomicInteger maxAheadOfClient = new AtomicInteger();
  // Counted down when Source first finds the call not ready, or when it sent everything.
  private final CountDownLatch sourceStopped = new CountDownLatch(1);
  private final CountDownLatch sourceFinished = new CountDownLatch(1);

  /** The service definition, bound to this instance's recorders. */
  public ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE_NAME)
        .addMethod(HANG, this::hang)
        .addMethod(
            THROW,
            (call, headers) -> {
              throw new IllegalStateException(THROWN);
            })
        .addMethod(
            ATTRIBUTES,
            (call, headers) -> {
              attributes.add(call.getAttributes());
              call.sendHeaders(new Metadata());
              call.sendMessage("ok");
              call.close(Status.OK, new Metadata());
              return new ServerCall.Listener<>() {};
            })
        .addMethod(SOURCE, this::source)
        .addMethod(SINK, this::sink)
        .build();
  }

  /** Waits for a call to {@link #HANG} to reach its handler. */
  public HangingCall awaitHangingCall() {
    return Await.poll(hangingCalls, "a call to reach the Hang handler");
  }

  /** Waits for a call to {@link #ATTRIBUTES} and returns what {@code getAttributes()} showed. */
  public Attributes awaitAttributes() {
    return Await.poll(attributes, "a call to reach the Attributes handler");
  }

  /** Waits for a call to {@link #SINK}. */
  public SinkCall awaitSinkCall() {
    return Await.poll(sinkCalls, "a call to reach the Sink handler");
  }

  /** The client reports each {@link #SOURCE} message it received. */
  public void clientReceivedOne() {
    clientReceived.incrementAndGet();
  }

  /** How many messages {@link #SOURCE} sent. */
  public int sourceSent() {
    return sourceSent.get();
  }

  /** The most messages {@link #SOURCE} had sent beyond what the client had received. */
  public int maxAheadOfClient() {
    return maxAheadOfClient.get();
  }

  /** Waits until {@link #SOURCE} first stopped for want of readiness, or sent everything. */
  public void awaitSourceStopped() {
    Await.await(sourceStopped, "the Source handler to be held back or to finish");
  }

  /** Whether {@link #SOURCE} sent every message. */
  public boolean sourceFinished() {
    return sourceFinished.getCount() == 0;
  }

  private ServerCall.Listener<String> hang(ServerCall<String, String> call, Metadata headers) {
    CountDownLatch onCancel = new CountDownLatch(1);
    CountDownLatch contextCancelled = new CountDownLatch(1);
    Context context = Context.current();
    context.addListener(cancelled -> contextCancelled.countDown(), Runnable::run);
    hangingCalls.add(
        new HangingCall(call, headers, context.getDeadline(), onCancel, contextCancelled));
    call.request(1);
    return new ServerCall.Listener<>() {
      @Override
      public void onCancel() {
        onCancel.countDown();
      }
    };
  }

  private ServerCall.Listener<String> source(ServerCall<String, String> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      private int total = -1;
      private final String payload = "x".repeat(SOURCE_MESSAGE_SIZE);

      @Override
      public void onMessage(String message) {
        total = Integer.parseInt(message);
      }

      @Override
      public void onHalfClose() {
        call.sendHeaders(new Metadata());
        sendWhileReady();
      }

      @Override
      public void onReady() {
        if (total >= 0) {
          sendWhileReady();
        }
      }

      private void sendWhileReady() {
        while (sourceSent.get() < total) {
          if (!call.isReady()) {
            sourceStopped.countDown();
            return;
          }
          call.sendMessage(payload);
          int ahead = sourceSent.incrementAndGet() - clientReceived.get();
          maxAheadOfClient.accumulateAndGet(ahead, Math::max);
        }
        if (sourceFinished.getCount() > 0) {
          sourceFinished.countDown();
          sourceStopped.countDown();
          call.close(Status.OK, new Metadata());
        }
      }
    };
  }

  private ServerCall.Listener<String> sink(ServerCall<String, String> call, Metadata headers) {
    BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    CountDownLatch halfClosed = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    sinkCalls.add(new SinkCall(call, messages, halfClosed, done));
    return new ServerCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        messages.add(message);
      }

      @Override
      public void onHalfClose() {
        halfClosed.countDown();
      }

      @Override
      public void onComplete() {
        done.countDown();
      }

      @Override
      public void onCancel() {
        done.countDown();
      }
    };
  }

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, name))
        .setType(type)
        .build();
  }
}
