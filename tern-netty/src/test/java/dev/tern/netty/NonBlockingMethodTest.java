package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A method declared non-blocking runs on the connection's event loop, while the server's other
 * methods keep its executor; a blocking stub called there fails instead of stalling the loop.
 */
class NonBlockingMethodTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String EXECUTOR_THREAD = "app-executor";

  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(task -> new Thread(task, EXECUTOR_THREAD));

  /** The thread each method's call started on (the interceptor runs where its method runs). */
  private final Map<String, Thread> threads = new ConcurrentHashMap<>();

  /** Made by the interceptor, on the call's thread, for calls carrying the "call-back" header. */
  private volatile ManagedChannel channel;

  private static final Metadata.Key<String> CALL_BACK =
      Metadata.Key.of("call-back", Metadata.ASCII_STRING_MARSHALLER);

  @AfterEach
  void stopExecutor() {
    executor.shutdownNow();
  }

  private ManagedChannel start() throws Exception {
    ServerInterceptor recordThread =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            threads.put(call.getMethodDescriptor().getBareMethodName(), Thread.currentThread());
            if (headers.containsKey(CALL_BACK)) {
              unary(channel, "nested");
            }
            return next.startCall(call, headers);
          }
        };
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .executor(executor)
                .addService(new EchoService())
                .nonBlocking(EchoService.UNARY.getFullMethodName())
                .intercept(recordThread)
                .build()
                .start());
    channel =
        cleanup.register(
            NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());
    return channel;
  }

  private static String unary(Channel channel, String message) {
    return ClientCalls.blockingUnaryCall(
        channel,
        EchoService.UNARY,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        message);
  }

  @Test
  void nonBlockingMethodRunsOnTheEventLoopAndTheOthersOnTheExecutor() throws Exception {
    ManagedChannel channel = start();

    assertThat(unary(channel, "hi")).isEqualTo("hi");
    assertThat(
            ClientCalls.blockingServerStreamingCall(
                    channel, EchoService.SERVER_STREAMING, CallOptions.DEFAULT, "1")
                .next())
        .isEqualTo("0");

    assertThat(threads.get("Unary").getName()).startsWith("tern-netty-worker");
    assertThat(threads.get("ServerStreaming").getName()).isEqualTo(EXECUTOR_THREAD);
  }

  @Test
  void blockingStubOnTheEventLoopFailsNamingTheMethod() throws Exception {
    ManagedChannel channel = start();
    Metadata headers = new Metadata();
    headers.put(CALL_BACK, "yes");

    List<LogRecord> logged;
    StatusRuntimeException failure;
    try (LogCapture log =
        new LogCapture("dev.tern.internal.server.ServerCallStreamListener", Level.WARNING)) {
      failure =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  unary(
                      ClientInterceptors.intercept(
                          channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
                      "hi"));
      logged = log.records();
    }

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(logged)
        .singleElement()
        .satisfies(
            record ->
                assertThat(record.getThrown())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                        "Blocking call to tern.testing.Echo/Unary (a blocking stub) on the transport thread"
                            + " from non-blocking method tern.testing.Echo/Unary"));
    // The event loop was never blocked: the connection still serves.
    assertThat(unary(channel, "still")).isEqualTo("still");
  }
}
