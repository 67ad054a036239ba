package dev.tern.services.reflection;

import dev.tern.services.health.v1.HealthCheckRequest;
import dev.tern.services.health.v1.HealthCheckResponse;
import dev.tern.services.health.v1.HealthTern;
import dev.tern.stub.StreamObserver;

/**
 * Just enough of grpc.health.v1.Health for reflection tests (Tern's real health service is written
 * elsewhere): Check answers SERVING for every service. Stateless; thread-safe.
 */
final class TinyHealthService extends HealthTern.HealthImplBase {
  @Override
  public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> responses) {
    responses.onNext(
        HealthCheckResponse.newBuilder()
            .setStatus(HealthCheckResponse.ServingStatus.SERVING)
            .build());
    responses.onCompleted();
  }
}
