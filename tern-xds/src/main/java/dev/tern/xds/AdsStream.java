package dev.tern.xds;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceTern;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;

/**
 * One ADS call, {@code StreamAggregatedResources} (state of the world), to one control plane. It
 * asks for one response at a time and asks for the next only once the client has handled the last
 * ({@link #requestNext}), so a control plane that floods updates is held back by flow control
 * instead of filling a queue here. Its events go to the {@link Handler} in the client's
 * synchronization context.
 *
 * <p>Thread-safety: {@link #start}, {@link #send}, {@link #requestNext} and {@link #cancel} are
 * called in the synchronization context only; the call's callbacks hop into it.
 */
final class AdsStream {
  /** What the stream reports, in the synchronization context. */
  interface Handler {
    void onResponse(AdsStream stream, DiscoveryResponse response);

    void onClosed(AdsStream stream, Status status);
  }

  private final ClientCall<DiscoveryRequest, DiscoveryResponse> call;
  private final SynchronizationContext syncContext;
  private final Handler handler;
  private boolean sentNode;
  private boolean receivedResponse;
  private boolean closed;

  AdsStream(Channel channel, SynchronizationContext syncContext, Handler handler) {
    this.call =
        channel.newCall(
            AggregatedDiscoveryServiceTern.getStreamAggregatedResourcesMethod(),
            CallOptions.DEFAULT);
    this.syncContext = syncContext;
    this.handler = handler;
  }

  void start() {
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(DiscoveryResponse message) {
            syncContext.execute(
                () -> {
                  if (!closed) {
                    receivedResponse = true;
                    handler.onResponse(AdsStream.this, message);
                  }
                });
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            syncContext.execute(
                () -> {
                  if (!closed) {
                    closed = true;
                    handler.onClosed(AdsStream.this, status);
                  }
                });
          }
        },
        new Metadata());
    call.request(1);
  }

  /** Whether the node has gone out already (only a stream's first request carries it). */
  boolean sentNode() {
    return sentNode;
  }

  /** Whether any response arrived on this stream (then reconnecting needs no back-off). */
  boolean receivedResponse() {
    return receivedResponse;
  }

  void send(DiscoveryRequest request) {
    if (closed) {
      return;
    }
    sentNode |= request.hasNode();
    call.sendMessage(request);
  }

  /** Lets the next response in, once the last one has been handled. */
  void requestNext() {
    if (!closed) {
      call.request(1);
    }
  }

  /** Ends the stream from this side; the handler hears nothing more from it. */
  void cancel(String why) {
    if (!closed) {
      closed = true;
      call.cancel(why, null);
    }
  }
}
