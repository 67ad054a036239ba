package dev.tern.stub;

/**
 * A response observer that also gets to configure the request side before the call starts: set an
 * on-ready handler, or take over inbound flow control.
 *
 * <pre>{@code
 * stub.listFeatures(request, new ClientResponseObserver<Rectangle, Feature>() {
 *   ClientCallStreamObserver<Rectangle> requestStream;
 *
 *   public void beforeStart(ClientCallStreamObserver<Rectangle> requestStream) {
 *     this.requestStream = requestStream;
 *     requestStream.disableAutoRequestWithInitialRequest(1);
 *   }
 *
 *   public void onNext(Feature feature) {
 *     process(feature);
 *     requestStream.request(1); // ready for the next one
 *   }
 *   ...
 * });
 * }</pre>
 *
 * @param <ReqT> the request type
 * @param <RespT> the response type
 */
public interface ClientResponseObserver<ReqT, RespT> extends StreamObserver<RespT> {
  /**
   * Called once, on the thread starting the call, before the call starts. Use {@code requestStream}
   * only to configure it here ({@link ClientCallStreamObserver#setOnReadyHandler}, {@link
   * ClientCallStreamObserver#disableAutoRequestWithInitialRequest}...); keep it to send and cancel
   * later.
   */
  void beforeStart(ClientCallStreamObserver<ReqT> requestStream);
}
