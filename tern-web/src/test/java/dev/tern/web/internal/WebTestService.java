package dev.tern.web.internal;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import dev.tern.Metadata;
import dev.tern.protobuf.StatusProto;
import dev.tern.stub.StreamObserver;
import dev.tern.web.test.EchoRequest;
import dev.tern.web.test.EchoResponse;
import dev.tern.web.test.WebTestTern;
import java.util.ArrayList;
import java.util.List;

/** The service the protocol tests call. Thread-safe (stateless). */
final class WebTestService extends WebTestTern.WebTestImplBase {
  static final Metadata.Key<String> TRAILER =
      Metadata.Key.of("x-trailer", Metadata.ASCII_STRING_MARSHALLER);

  @Override
  public void echo(EchoRequest request, StreamObserver<EchoResponse> responses) {
    answer(request, responses);
  }

  @Override
  public void store(EchoRequest request, StreamObserver<EchoResponse> responses) {
    answer(request, responses);
  }

  private static void answer(EchoRequest request, StreamObserver<EchoResponse> responses) {
    switch (request.getText()) {
      case "fail":
        responses.onError(notFound());
        return;
      case "wait":
        return; // the deadline ends it
      default:
        EchoResponse.Builder response = EchoResponse.newBuilder().setText(request.getText());
        if (request.hasWhen()) {
          response.setWhen(request.getWhen());
        }
        if (request.hasExtra()) {
          response.setExtra(request.getExtra());
        }
        responses.onNext(response.build());
        responses.onCompleted();
    }
  }

  static RuntimeException notFound() {
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.NOT_FOUND_VALUE)
            .setMessage("no such thing")
            .addDetails(
                Any.pack(ErrorInfo.newBuilder().setReason("MISSING").setDomain("tern.dev").build()))
            .build();
    Metadata trailers = new Metadata();
    trailers.put(TRAILER, "bye");
    return StatusProto.toStatusRuntimeException(status, trailers);
  }

  @Override
  public void count(EchoRequest request, StreamObserver<EchoResponse> responses) {
    for (int i = 0; i < request.getCount(); i++) {
      responses.onNext(EchoResponse.newBuilder().setText(request.getText() + " " + i).build());
    }
    if ("fail".equals(request.getText())) {
      responses.onError(notFound());
      return;
    }
    responses.onCompleted();
  }

  @Override
  public StreamObserver<EchoRequest> join(StreamObserver<EchoResponse> responses) {
    List<String> texts = new ArrayList<>();
    return new StreamObserver<>() {
      @Override
      public void onNext(EchoRequest value) {
        texts.add(value.getText());
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onNext(EchoResponse.newBuilder().setText(String.join(",", texts)).build());
        responses.onCompleted();
      }
    };
  }

  @Override
  public StreamObserver<EchoRequest> chat(StreamObserver<EchoResponse> responses) {
    return new StreamObserver<>() {
      @Override
      public void onNext(EchoRequest value) {
        responses.onNext(EchoResponse.newBuilder().setText(value.getText()).build());
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onCompleted();
      }
    };
  }
}
