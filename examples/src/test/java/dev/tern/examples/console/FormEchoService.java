package dev.tern.examples.console;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.tern.Context;
import dev.tern.Contexts;
import dev.tern.Deadline;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.examples.consoletest.Echoed;
import dev.tern.examples.consoletest.Everything;
import dev.tern.examples.consoletest.FormEchoTern;
import dev.tern.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code tern.examples.consoletest.FormEcho}: answers each request with what it received (the
 * request as JSON, the {@code x-console-test} header, the time left before the deadline) and keeps
 * each request for the test to read. Thread-safe.
 */
final class FormEchoService extends FormEchoTern.FormEchoImplBase {
  private static final Metadata.Key<String> TEST_HEADER =
      Metadata.Key.of("x-console-test", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> HEADER_IN_CONTEXT = Context.key("x-console-test");

  private final BlockingQueue<Everything> received = new LinkedBlockingQueue<>();

  /** The service, with the interceptor that hands the test header to the handler. */
  ServerServiceDefinition definition() {
    ServerInterceptor header =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            String value = headers.get(TEST_HEADER);
            Context context =
                Context.current().withValue(HEADER_IN_CONTEXT, value == null ? "" : value);
            return Contexts.interceptCall(context, call, headers, next);
          }
        };
    return ServerInterceptors.intercept(bindService(), header);
  }

  /** The next request received, waiting up to {@code seconds}; null if none came. */
  Everything nextRequest(int seconds) throws InterruptedException {
    return received.poll(seconds, TimeUnit.SECONDS);
  }

  @Override
  public void echo(Everything request, StreamObserver<Echoed> responses) {
    received.add(request);
    Deadline deadline = Context.current().getDeadline();
    try {
      responses.onNext(
          Echoed.newBuilder()
              .setRequestJson(JsonFormat.printer().omittingInsignificantWhitespace().print(request))
              .setHeader(HEADER_IN_CONTEXT.get())
              .setDeadlineLeftMs(
                  deadline == null ? -1 : deadline.timeRemaining(TimeUnit.MILLISECONDS))
              .build());
      responses.onCompleted();
    } catch (InvalidProtocolBufferException e) {
      responses.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
    }
  }
}
