package dev.tern.services.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthCheckResponse.ServingStatus;
import dev.tern.services.health.v1.HealthTern;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client's {@code Watch} call with explicit flow control: it asks for {@code initialRequest}
 * statuses, then for more only when the test says so, and records what arrives.
 *
 * <p>Thread-safe: the call's callbacks fill the queue; the test thread reads it.
 */
final class WatchRecorder extends ClientCall.Listener<HealthCheckResponse> {
  final BlockingQueue<ServingStatus> statuses = new LinkedBlockingQueue<>();
  final CompletableFuture<Status> closed = new CompletableFuture<>();
  private final ClientCall<HealthCheckRequest, HealthCheckResponse> call;

  private WatchRecorder(Channel channel) {
    call = channel.newCall(HealthTern.getWatchMethod(), CallOptions.DEFAULT);
  }

  /** Starts watching {@code service}, asking for {@code initialRequest} statuses. */
  static WatchRecorder start(Channel channel, String service, int initialRequest) {
    WatchRecorder recorder = new WatchRecorder(channel);
    recorder.call.start(recorder, new Metadata());
    recorder.call.request(initialRequest);
    recorder.call.sendMessage(HealthCheckRequest.newBuilder().setService(service).build());
    recorder.call.halfClose();
    return recorder;
  }

  /** Asks for {@code count} more statuses. */
  void request(int count) {
    call.request(count);
  }

  /** Ends the call from the client side. */
  void cancel() {
    call.cancel("test done", null);
  }

  /** The next status, waiting up to five seconds for it. */
  ServingStatus next() throws InterruptedException {
    ServingStatus status = statuses.poll(5, TimeUnit.SECONDS);
    assertThat(status).as("a status within 5 s").isNotNull();
    return status;
  }

  @Override
  public void onMessage(HealthCheckResponse message) {
    statuses.add(message.getStatus());
  }

  @Override
  public void onClose(Status status, Metadata trailers) {
    closed.complete(status);
  }
}
