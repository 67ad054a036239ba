package dev.tern.services.reflection;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.Channel;
import dev.tern.services.reflection.v1.ServerReflectionRequest;
import dev.tern.services.reflection.v1.ServerReflectionResponse;
import dev.tern.services.reflection.v1.ServerReflectionTern;
import dev.tern.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One reflection stream driven request by request: {@link #ask} sends a request and waits (up to 10
 * s) for its response. Speaks v1 or v1alpha; v1alpha messages are converted from and to v1 (the
 * same fields), so tests compare the two directly. For one test thread; the queue hands responses
 * over from the call's thread.
 */
final class ReflectionClient implements AutoCloseable {
  private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
  private StreamObserver<ServerReflectionRequest> requests;

  private ReflectionClient() {}

  /** A stream to {@code grpc.reflection.v1.ServerReflection}. */
  static ReflectionClient v1(Channel channel) {
    ReflectionClient client = new ReflectionClient();
    client.requests =
        ServerReflectionTern.newStub(channel).serverReflectionInfo(client.observer(r -> r));
    return client;
  }

  /** A stream to {@code grpc.reflection.v1alpha.ServerReflection}. */
  static ReflectionClient v1alpha(Channel channel) {
    ReflectionClient client = new ReflectionClient();
    StreamObserver<dev.tern.services.reflection.v1alpha.ServerReflectionRequest> alpha =
        dev.tern.services.reflection.v1alpha.ServerReflectionTern.newStub(channel)
            .serverReflectionInfo(
                client.observer(r -> ServerReflectionResponse.parseFrom(r.toByteString())));
    client.requests =
        new StreamObserver<>() {
          @Override
          public void onNext(ServerReflectionRequest request) {
            try {
              alpha.onNext(
                  dev.tern.services.reflection.v1alpha.ServerReflectionRequest.parseFrom(
                      request.toByteString()));
            } catch (InvalidProtocolBufferException e) {
              throw new AssertionError(e);
            }
          }

          @Override
          public void onError(Throwable t) {
            alpha.onError(t);
          }

          @Override
          public void onCompleted() {
            alpha.onCompleted();
          }
        };
    return client;
  }

  private interface Converter<T> {
    ServerReflectionResponse convert(T response) throws InvalidProtocolBufferException;
  }

  private <T> StreamObserver<T> observer(Converter<T> converter) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T response) {
        try {
          received.add(converter.convert(response));
        } catch (InvalidProtocolBufferException e) {
          received.add(e);
        }
      }

      @Override
      public void onError(Throwable t) {
        received.add(t);
      }

      @Override
      public void onCompleted() {
        received.add("completed");
      }
    };
  }

  ServerReflectionResponse ask(ServerReflectionRequest request) throws InterruptedException {
    requests.onNext(request);
    Object next = received.poll(10, TimeUnit.SECONDS);
    if (next instanceof ServerReflectionResponse) {
      return (ServerReflectionResponse) next;
    }
    throw new AssertionError("expected a response to " + request + ", got " + next);
  }

  /** Half-closes and checks that the server ends the stream with OK. */
  @Override
  public void close() {
    requests.onCompleted();
    Object next;
    try {
      next = received.poll(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the stream to complete", e);
    }
    if (!"completed".equals(next)) {
      throw new AssertionError("expected the stream to complete, got " + next);
    }
  }
}
