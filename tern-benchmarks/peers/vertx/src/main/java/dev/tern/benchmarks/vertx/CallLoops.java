package dev.tern.benchmarks.vertx;

import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.common.GrpcStatus;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * One channel's closed call loops: each keeps one call (or one ping-pong message) in flight until
 * the measured window ends, recording the latency of every call that ends inside it, then counts
 * itself down. A failed call stops its loop and is recorded as the run's failure.
 *
 * <p>Confined to the event loop of the context that starts the loops: the histogram is written
 * there only, and read by main after every loop counted down.
 */
final class CallLoops {
  /** Calls ending in [start, end) (System.nanoTime) are measured; loops stop at end. */
  record Window(long start, long end) {}

  private final GrpcClient client;
  private final SocketAddress server;
  private final SimpleRequest request;
  private final Window window;
  private final Histogram histogram;
  private final CountDownLatch ended;
  private final AtomicReference<Throwable> failure;

  CallLoops(
      GrpcClient client,
      SocketAddress server,
      SimpleRequest request,
      Window window,
      Histogram histogram,
      CountDownLatch ended,
      AtomicReference<Throwable> failure) {
    this.client = client;
    this.server = server;
    this.request = request;
    this.window = window;
    this.histogram = histogram;
    this.ended = ended;
    this.failure = failure;
  }

  /** One loop of unary calls, each started when the one before it ended well. */
  void unary() {
    long start = System.nanoTime();
    client
        .request(server, BenchmarkMethods.UNARY_CLIENT)
        .compose(call -> call.send(request))
        .compose(response -> response.last().map(message -> response))
        .onComplete(
            done -> {
              if (done.failed()) {
                fail(done.cause());
              } else if (done.result().status() != GrpcStatus.OK) {
                fail(statusError(done.result()));
              } else if (finished(start)) {
                ended.countDown();
              } else {
                unary();
              }
            });
  }

  /** One StreamingCall on which each answer sends the next message, half-closed at the end. */
  void streaming() {
    client
        .request(server, BenchmarkMethods.STREAMING_CLIENT)
        .onFailure(this::fail)
        .onSuccess(
            call -> {
              long[] sent = {System.nanoTime()};
              call.response()
                  .onFailure(this::fail)
                  .onSuccess(response -> pingPong(call, response, sent));
              call.write(request);
            });
  }

  private void pingPong(
      GrpcClientRequest<SimpleRequest, SimpleResponse> call,
      GrpcClientResponse<SimpleRequest, SimpleResponse> response,
      long[] sent) {
    response.exceptionHandler(this::fail);
    response.handler(
        answer -> {
          if (finished(sent[0])) {
            call.end();
          } else {
            sent[0] = System.nanoTime();
            call.write(request);
          }
        });
    response.endHandler(
        end -> {
          if (response.status() == GrpcStatus.OK) {
            ended.countDown();
          } else {
            fail(statusError(response));
          }
        });
  }

  /** Records a call started at {@code start} that ended now; whether the loop is over. */
  private boolean finished(long start) {
    long now = System.nanoTime();
    if (now >= window.start() && now < window.end()) {
      histogram.recordValue(Math.min(now - start, histogram.getHighestTrackableValue()));
    }
    return now >= window.end();
  }

  private static IllegalStateException statusError(GrpcClientResponse<?, ?> response) {
    return new IllegalStateException(
        "status " + response.status() + ": " + response.statusMessage());
  }

  private void fail(Throwable cause) {
    failure.compareAndSet(null, cause);
    // Waking main at once: the run has failed, the other loops need not be waited for.
    while (ended.getCount() > 0) {
      ended.countDown();
    }
  }
}
