package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.UNARY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.Attributes;
import dev.tern.ForwardingServerCall;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.internal.server.ServerTestSupport.QueueExecutor;
import dev.tern.stub.ServerCalls;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The stubs' unary handler requests its two messages at start; the runtime asks the transport for
 * them while it starts the call, on the transport's thread, and absorbs the handler's own request.
 */
class RequestsAtStartTest {
  private final QueueExecutor executor = new QueueExecutor();

  private FakeServerTransport start(ServerServiceDefinition service) throws IOException {
    FakeServerBuilder builder = new FakeServerBuilder().executor(executor);
    builder.addService(service).build().start();
    FakeServerTransport transport = builder.transportServer.accept();
    transport.ready(Attributes.EMPTY);
    return transport;
  }

  private static ServerServiceDefinition upperCaseService() {
    return ServerServiceDefinition.builder("test.Echo")
        .addMethod(
            UNARY,
            ServerCalls.<String, String>asyncUnaryCall(
                (request, responses) -> {
                  responses.onNext(request.toUpperCase());
                  responses.onCompleted();
                }))
        .build();
  }

  @Test
  void theTransportIsAskedOnceBeforeTheHandlerRunsAndTheCallCompletes() throws IOException {
    FakeServerTransport transport = start(upperCaseService());
    transport.newStream("test.Echo/Unary", new Metadata());
    FakeServerStream stream = transport.streams.get(0);

    assertThat(stream.requested).isEqualTo(2); // before startCall ran on the executor
    stream.clientSends("hello");
    stream.clientHalfCloses();
    executor.runAll();

    assertThat(stream.requested).isEqualTo(2); // the handler's request(2) was absorbed
    assertThat(stream.writtenMessages).containsExactly("HELLO");
    assertThat(stream.closeStatus.getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void anInterceptedHandlerRequestsForItselfThroughTheInterceptors() throws IOException {
    int[] seenByInterceptor = {0};
    ServerInterceptor counting =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return next.startCall(
                new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                  @Override
                  public void request(int numMessages) {
                    seenByInterceptor[0] += numMessages;
                    super.request(numMessages);
                  }
                },
                headers);
          }
        };
    FakeServerTransport transport =
        start(ServerInterceptors.intercept(upperCaseService(), counting));
    transport.newStream("test.Echo/Unary", new Metadata());
    FakeServerStream stream = transport.streams.get(0);

    assertThat(stream.requested).isZero();
    executor.runAll();

    assertThat(seenByInterceptor[0]).isEqualTo(2);
    assertThat(stream.requested).isEqualTo(2);
  }
}
