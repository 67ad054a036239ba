package dev.tern.grpcjava.spring;

import dev.tern.grpcjava.spring.proto.EchoGrpc;
import dev.tern.grpcjava.spring.proto.EchoReply;
import dev.tern.grpcjava.spring.proto.EchoRequest;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import org.springframework.stereotype.Service;

/**
 * The application's gRPC service: grpc-java's generated base class, found by Spring gRPC as a
 * {@code BindableService} bean.
 */
@Service
public class EchoService extends EchoGrpc.EchoImplBase {

  @Override
  public void say(EchoRequest request, StreamObserver<EchoReply> responseObserver) {
    if (request.getText().isEmpty()) {
      responseObserver.onError(
          Status.INVALID_ARGUMENT.withDescription("say something").asRuntimeException());
      return;
    }
    if (request.getText().equals("boom")) {
      // Left to the application's GrpcExceptionHandler (SpringEchoApplication).
      throw new IllegalStateException("boom is not a greeting");
    }
    responseObserver.onNext(reply("Hello, " + request.getText()));
    responseObserver.onCompleted();
  }

  @Override
  public void repeat(EchoRequest request, StreamObserver<EchoReply> responseObserver) {
    for (int i = 1; i <= request.getCount(); i++) {
      responseObserver.onNext(reply(request.getText() + " " + i));
    }
    responseObserver.onCompleted();
  }

  private static EchoReply reply(String text) {
    return EchoReply.newBuilder().setText(text).build();
  }
}
