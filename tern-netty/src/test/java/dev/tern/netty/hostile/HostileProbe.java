package dev.tern.netty.hostile;

import dev.tern.Attributes;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.ServerTransportFilter;
import dev.tern.Status;
import dev.tern.testing.Await;
import dev.tern.testing.TestMarshallers;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server-side probe for the hostile and stress tests: two methods that report what the server's
 * application sees, a counter of calls started (for any method), and a record of connections.
 *
 * <ul>
 *   <li>{@link #HANG}: never answers; reports each call when it starts and when it is cancelled.
 *   <li>{@link #GATE}: answers only when the test runs the call's entry in {@link #gated}; counts
 *       how many calls wait at once.
 *   <li>{@link #BULK}: the request {@code "count:size"} asks for {@code count} messages of {@code
 *       size} bytes ({@link #bulkChunk}); they are sent only while the call is ready, and the probe
 *       counts what was sent and reports each time the sender is held back ({@code isReady()}
 *       false).
 *   <li>{@link #FLOOD}: the request {@code "count:size"} asks for {@code count} messages of {@code
 *       size} bytes, all sent at once without looking at {@code isReady()}, as a naive handler
 *       does; the probe records the most memory Netty's default allocator had in use after each one
 *       ({@link #floodPeakAllocated}) and reports when the sending is over and when a call is
 *       cancelled.
 * </ul>
 *
 * <p>Thread-safe: the runtime drives each call's listener one callback at a time; everything the
 * test reads is in atomics and concurrent queues.
 */
final class HostileProbe {
  static final String SERVICE = "tern.hostile.Probe";

  static final MethodDescriptor<String, String> HANG =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName(SERVICE + "/Hang")
          .setType(MethodType.UNARY)
          .build();

  static final MethodDescriptor<String, String> GATE =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
          .setFullMethodName(SERVICE + "/Gate")
          .setType(MethodType.UNARY)
          .build();

  static final MethodDescriptor<String, byte[]> BULK =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.bytes())
          .setFullMethodName(SERVICE + "/Bulk")
          .setType(MethodType.SERVER_STREAMING)
          .build();

  static final MethodDescriptor<String, byte[]> FLOOD =
      MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.bytes())
          .setFullMethodName(SERVICE + "/Flood")
          .setType(MethodType.SERVER_STREAMING)
          .build();

  /** Calls started, any method (counted by {@link #interceptor()}). */
  final AtomicInteger callsStarted = new AtomicInteger();

  /** Connections the server made ready (counted by {@link #transportFilter()}). */
  final AtomicInteger connections = new AtomicInteger();

  /** One entry per connection the server dropped (counted by {@link #transportFilter()}). */
  final BlockingQueue<String> connectionsTerminated = new LinkedBlockingQueue<>();

  /** One entry per {@link #HANG} call started: the request headers. */
  final BlockingQueue<Metadata> hangsStarted = new LinkedBlockingQueue<>();

  /** One entry per {@link #HANG} call cancelled. */
  final BlockingQueue<String> hangsCancelled = new LinkedBlockingQueue<>();

  /** One entry per {@link #GATE} call waiting: running it answers and ends the call. */
  final BlockingQueue<Runnable> gated = new LinkedBlockingQueue<>();

  /** {@link #GATE} calls waiting now, and the most that ever waited at once. */
  final AtomicInteger gatedNow = new AtomicInteger();

  final AtomicInteger gatedMost = new AtomicInteger();

  /** Messages {@link #BULK} has sent, over all its calls. */
  final AtomicLong bulkSent = new AtomicLong();

  /** One entry per time {@link #BULK} found the call not ready: messages sent so far. */
  final BlockingQueue<Long> bulkHeldBack = new LinkedBlockingQueue<>();

  /** The most bytes Netty's default allocator had in use right after a {@link #FLOOD} message. */
  final AtomicLong floodPeakAllocated = new AtomicLong();

  /** One entry per {@link #FLOOD} call whose sending is over. */
  final BlockingQueue<String> floodsSent = new LinkedBlockingQueue<>();

  /**
   * When set, each {@link #FLOOD} call waits for it before it sends anything, so that a test can
   * have all its calls open before the first of them trips a connection-wide limit (which would
   * drop the requests of the calls not yet read).
   */
  volatile CountDownLatch floodGate;

  /** One entry per {@link #FLOOD} call whose request arrived, before it waits at the gate. */
  final BlockingQueue<String> floodsArrived = new LinkedBlockingQueue<>();

  /** One entry per {@link #FLOOD} call cancelled. */
  final BlockingQueue<String> floodsCancelled = new LinkedBlockingQueue<>();

  /** The bytes Netty's default allocator (the one Tern's buffers come from) has in use. */
  static long allocatedBytes() {
    ByteBufAllocatorMetric metric =
        ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
    return metric.usedDirectMemory() + metric.usedHeapMemory();
  }

  /** The content of every {@link #BULK} message of {@code size} bytes. */
  static byte[] bulkChunk(int size) {
    byte[] chunk = new byte[size];
    for (int i = 0; i < size; i++) {
      chunk[i] = (byte) (i * 31 + 7);
    }
    return chunk;
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(HANG, this::startHang)
        .addMethod(BULK, this::startBulk)
        .addMethod(GATE, this::startGate)
        .addMethod(FLOOD, this::startFlood)
        .build();
  }

  ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        callsStarted.incrementAndGet();
        return next.startCall(call, headers);
      }
    };
  }

  ServerTransportFilter transportFilter() {
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes transportAttrs) {
        connections.incrementAndGet();
        return transportAttrs;
      }

      @Override
      public void transportTerminated(Attributes transportAttrs) {
        connectionsTerminated.add("terminated");
      }
    };
  }

  private ServerCall.Listener<String> startHang(ServerCall<String, String> call, Metadata headers) {
    call.request(1);
    hangsStarted.add(headers);
    return new ServerCall.Listener<>() {
      @Override
      public void onCancel() {
        hangsCancelled.add("cancelled");
      }
    };
  }

  private ServerCall.Listener<String> startGate(ServerCall<String, String> call, Metadata headers) {
    gatedMost.accumulateAndGet(gatedNow.incrementAndGet(), Math::max);
    call.request(1);
    return new ServerCall.Listener<>() {
      @Override
      public void onHalfClose() {
        // Answered from the test thread; the runtime lets a call be driven from any thread.
        gated.add(
            () -> {
              gatedNow.decrementAndGet();
              call.sendHeaders(new Metadata());
              call.sendMessage("released");
              call.close(Status.OK, new Metadata());
            });
      }
    };
  }

  private ServerCall.Listener<String> startBulk(ServerCall<String, byte[]> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      private byte[] chunk;
      private int remaining;
      private boolean sending;

      @Override
      public void onMessage(String request) {
        String[] parts = request.split(":", 2);
        remaining = Integer.parseInt(parts[0]);
        // One array sent again and again: the sender's own memory stays constant.
        chunk = bulkChunk(Integer.parseInt(parts[1]));
      }

      @Override
      public void onHalfClose() {
        call.sendHeaders(new Metadata());
        sending = true;
        sendWhileReady();
      }

      @Override
      public void onReady() {
        if (sending) {
          sendWhileReady();
        }
      }

      @Override
      public void onCancel() {
        sending = false;
      }

      private void sendWhileReady() {
        while (remaining > 0 && call.isReady()) {
          call.sendMessage(chunk);
          remaining--;
          bulkSent.incrementAndGet();
        }
        if (remaining > 0) {
          bulkHeldBack.add(bulkSent.get());
        } else {
          sending = false;
          call.close(Status.OK, new Metadata());
        }
      }
    };
  }

  private ServerCall.Listener<String> startFlood(
      ServerCall<String, byte[]> call, Metadata headers) {
    call.request(1);
    return new ServerCall.Listener<>() {
      private int count;
      private byte[] chunk;

      @Override
      public void onMessage(String request) {
        String[] parts = request.split(":", 2);
        count = Integer.parseInt(parts[0]);
        chunk = bulkChunk(Integer.parseInt(parts[1]));
      }

      @Override
      public void onHalfClose() {
        floodsArrived.add("arrived");
        CountDownLatch gate = floodGate;
        try {
          if (gate != null && !gate.await(Await.TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError("the test never opened the flood gate");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        call.sendHeaders(new Metadata());
        for (int i = 0; i < count; i++) {
          call.sendMessage(chunk);
          floodPeakAllocated.accumulateAndGet(allocatedBytes(), Math::max);
        }
        call.close(Status.OK, new Metadata());
        floodsSent.add("sent");
      }

      @Override
      public void onCancel() {
        floodsCancelled.add("cancelled");
      }
    };
  }
}
