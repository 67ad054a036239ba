package dev.tern.services.reflection;

import dev.tern.services.reflection.testing.Carrier;
import dev.tern.services.reflection.testing.Order;
import dev.tern.services.reflection.testing.OrderServiceTern;
import dev.tern.services.reflection.testing.Receipt;
import dev.tern.services.reflection.testing.TrackRequest;
import dev.tern.stub.StreamObserver;

/**
 * The test service the reflection tests describe and call: Place answers one receipt, Track one
 * receipt per step asked for, Chat one receipt per order. Stateless; thread-safe.
 */
final class OrderServiceImpl extends OrderServiceTern.OrderServiceImplBase {
  @Override
  public void place(Order request, StreamObserver<Receipt> responses) {
    responses.onNext(receipt(request.getId(), 0));
    responses.onCompleted();
  }

  @Override
  public void track(TrackRequest request, StreamObserver<Receipt> responses) {
    for (int step = 1; step <= request.getSteps(); step++) {
      responses.onNext(receipt(request.getOrderId(), step));
    }
    responses.onCompleted();
  }

  @Override
  public StreamObserver<Order> chat(StreamObserver<Receipt> responses) {
    return new StreamObserver<>() {
      @Override
      public void onNext(Order order) {
        responses.onNext(receipt(order.getId(), 0));
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    };
  }

  private static Receipt receipt(String orderId, int step) {
    return Receipt.newBuilder()
        .setOrderId(orderId)
        .setCarrier(Carrier.COURIER)
        .setStep(step)
        .build();
  }
}
