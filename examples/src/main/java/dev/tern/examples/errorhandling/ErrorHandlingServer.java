package dev.tern.examples.errorhandling;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Help;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.Status;
import dev.tern.examples.helloworld.GreeterTern;
import dev.tern.examples.helloworld.HelloReply;
import dev.tern.examples.helloworld.HelloRequest;
import dev.tern.protobuf.StatusProto;
import dev.tern.stub.StreamObserver;
import java.io.IOException;

/**
 * A greeter that fails calls in the three ways a service meets: a plain status (code and
 * description), a rich error (a {@code google.rpc.Status} with typed details, sent in the {@code
 * grpc-status-details-bin} trailer), and a bug (an exception the handler did not mean to throw).
 * Serves over HTTP/2 on {@code --port=N} (default 50051; 0 for any free port).
 */
public final class ErrorHandlingServer {
  /** Longer names are refused with a rich error. */
  static final int MAX_NAME_LENGTH = 20;

  private ErrorHandlingServer() {}

  /** The greeter. Stateless; thread-safe. */
  static final class GreeterService extends GreeterTern.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> responseObserver) {
      String name = request.getName();
      if (name.isEmpty()) {
        // A plain status: the client gets the code and this description, nothing more.
        responseObserver.onError(
            Status.INVALID_ARGUMENT.withDescription("name must not be empty").asRuntimeException());
        return;
      }
      if (name.length() > MAX_NAME_LENGTH) {
        responseObserver.onError(StatusProto.toStatusRuntimeException(nameTooLong(name)));
        return;
      }
      if (name.equals("crash")) {
        // A bug. The client gets UNKNOWN "Application error processing RPC" and nothing of this
        // exception; the server logs it (WARNING, with the method's name and the stack trace).
        throw new IllegalStateException("greeting store unreachable at 10.0.0.7:5432");
      }
      responseObserver.onNext(HelloReply.newBuilder().setMessage("Hello, " + name + "!").build());
      responseObserver.onCompleted();
    }

    /** A rich error: code, message and three standard details the client can act on. */
    private static com.google.rpc.Status nameTooLong(String name) {
      return com.google.rpc.Status.newBuilder()
          .setCode(Status.Code.INVALID_ARGUMENT.value())
          .setMessage("name is too long")
          .addDetails(
              Any.pack(
                  BadRequest.newBuilder()
                      .addFieldViolations(
                          BadRequest.FieldViolation.newBuilder()
                              .setField("name")
                              .setDescription(
                                  "at most "
                                      + MAX_NAME_LENGTH
                                      + " characters, got "
                                      + name.length()))
                      .build()))
          .addDetails(
              Any.pack(
                  ErrorInfo.newBuilder()
                      .setReason("NAME_TOO_LONG")
                      .setDomain("greeter.examples.tern.dev")
                      .putMetadata("max_length", String.valueOf(MAX_NAME_LENGTH))
                      .build()))
          .addDetails(
              Any.pack(
                  Help.newBuilder()
                      .addLinks(
                          Help.Link.newBuilder()
                              .setDescription("Naming rules")
                              .setUrl("https://example.com/greeter/names"))
                      .build()))
          .build();
    }
  }

  /** Starts the greeter on {@code port}. */
  public static Server start(int port) throws IOException {
    return ServerBuilder.forPort(port).addService(new GreeterService()).build().start();
  }

  /** {@code java ... ErrorHandlingServer [--port=N]}. */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port =
        args.length > 0 && args[0].startsWith("--port=")
            ? Integer.parseInt(args[0].substring("--port=".length()))
            : 50051;
    Server server = start(port);
    System.out.println("Greeter listening on port " + server.getPort());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdown));
    server.awaitTermination();
  }
}
