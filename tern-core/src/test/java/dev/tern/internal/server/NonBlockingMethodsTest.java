package dev.tern.internal.server;

import static dev.tern.internal.server.ServerTestSupport.method;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.BindableService;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.NonBlocking;
import dev.tern.Server;
import dev.tern.ServerBuilder;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.internal.LogCapture;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Methods declared non-blocking ({@link NonBlocking}, {@link ServerBuilder#nonBlocking}) run on the
 * transport's thread (in-process: the client's calling thread), the others on the executor; Tern's
 * blocking calls refuse to run there.
 */
class NonBlockingMethodsTest {
  private static final MethodDescriptor<String, String> HELLO =
      method("test.Greeter/SayHello", false);
  private static final MethodDescriptor<String, String> BYE = method("test.Greeter/SayBye", false);
  private static final String EXECUTOR_THREAD = "app-executor";

  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(task -> new Thread(task, EXECUTOR_THREAD));
  private final String name = InProcessServerBuilder.generateName();
  private final ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
  private Server server;

  /** The thread each method's handler (and the interceptor, key "interceptor") ran on. */
  private final Map<String, String> threads = new ConcurrentHashMap<>();

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    executor.shutdownNow();
  }

  /** A greeter whose methods record their thread; subclasses add annotations. */
  static class Greeter implements BindableService {
    final Map<String, String> threads;

    Greeter(Map<String, String> threads) {
      this.threads = threads;
    }

    public void sayHello(String request, StreamObserver<String> responses) {
      threads.put("SayHello", Thread.currentThread().getName());
      responses.onNext("hello " + request);
      responses.onCompleted();
    }

    public void sayBye(String request, StreamObserver<String> responses) {
      threads.put("SayBye", Thread.currentThread().getName());
      responses.onNext("bye " + request);
      responses.onCompleted();
    }

    @Override
    public ServerServiceDefinition bindService() {
      return ServerServiceDefinition.builder("test.Greeter")
          .addMethod(HELLO, ServerCalls.asyncUnaryCall(this::sayHello))
          .addMethod(BYE, ServerCalls.asyncUnaryCall(this::sayBye))
          .build();
    }
  }

  @NonBlocking
  static final class NonBlockingGreeter extends Greeter {
    NonBlockingGreeter(Map<String, String> threads) {
      super(threads);
    }
  }

  static class NonBlockingHello extends Greeter {
    NonBlockingHello(Map<String, String> threads) {
      super(threads);
    }

    @NonBlocking
    @Override
    public void sayHello(String request, StreamObserver<String> responses) {
      super.sayHello(request, responses);
    }
  }

  private void start(ServerBuilder<?> builder) throws Exception {
    server = builder.build().start();
  }

  private InProcessServerBuilder builder() {
    return InProcessServerBuilder.forName(name).executor(executor);
  }

  private String call(MethodDescriptor<String, String> method) {
    return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, "you");
  }

  @Test
  void annotatedClassRunsEveryMethodOnTheTransportThread() throws Exception {
    start(builder().addService(new NonBlockingGreeter(threads)));

    assertThat(call(HELLO)).isEqualTo("hello you");
    assertThat(call(BYE)).isEqualTo("bye you");

    String caller = Thread.currentThread().getName();
    assertThat(threads).containsEntry("SayHello", caller).containsEntry("SayBye", caller);
  }

  @Test
  void annotatedMethodRunsOnTheTransportThreadAndTheOtherOnTheExecutor() throws Exception {
    start(builder().addService(new NonBlockingHello(threads)));

    assertThat(call(HELLO)).isEqualTo("hello you");
    assertThat(call(BYE)).isEqualTo("bye you");

    assertThat(threads)
        .containsEntry("SayHello", Thread.currentThread().getName())
        .containsEntry("SayBye", EXECUTOR_THREAD);
  }

  @Test
  void withoutDeclarationEveryMethodRunsOnTheExecutor() throws Exception {
    start(builder().addService(new Greeter(threads)));

    call(HELLO);
    call(BYE);

    assertThat(threads)
        .containsEntry("SayHello", EXECUTOR_THREAD)
        .containsEntry("SayBye", EXECUTOR_THREAD);
  }

  @Test
  void builderOptionDeclaresOneMethod() throws Exception {
    start(
        builder()
            .addService(new Greeter(threads).bindService())
            .nonBlocking("test.Greeter/SayBye"));
    call(HELLO);
    call(BYE);
    assertThat(threads)
        .containsEntry("SayHello", EXECUTOR_THREAD)
        .containsEntry("SayBye", Thread.currentThread().getName());
  }

  /**
   * A server and channel of its own (not a second server behind the same channel: the channel's
   * move to it may run on the first server's executor thread, which is then the transport's).
   */
  @Test
  void builderOptionDeclaresAWholeService() throws Exception {
    start(builder().addService(new Greeter(threads).bindService()).nonBlocking("test.Greeter"));
    call(HELLO);
    call(BYE);
    assertThat(threads)
        .containsEntry("SayHello", Thread.currentThread().getName())
        .containsEntry("SayBye", Thread.currentThread().getName());
  }

  @Test
  void interceptorsRunWhereTheMethodRuns() throws Exception {
    ServerInterceptor recordThread =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            threads.put(
                "interceptor " + call.getMethodDescriptor().getBareMethodName(),
                Thread.currentThread().getName());
            return next.startCall(call, headers);
          }
        };
    start(builder().addService(new NonBlockingHello(threads)).intercept(recordThread));

    call(HELLO);
    call(BYE);

    assertThat(threads)
        .containsEntry("interceptor SayHello", Thread.currentThread().getName())
        .containsEntry("interceptor SayBye", EXECUTOR_THREAD);
  }

  @Test
  void blockingStubInANonBlockingMethodFailsNamingTheMethod() throws Exception {
    Greeter greeter =
        new Greeter(threads) {
          @Override
          public void sayHello(String request, StreamObserver<String> responses) {
            responses.onNext(call(BYE));
            responses.onCompleted();
          }
        };
    start(builder().addService(greeter.bindService()).nonBlocking("test.Greeter/SayHello"));

    List<LogRecord> logged;
    StatusRuntimeException failure;
    try (LogCapture log = new LogCapture(ServerCallStreamListener.class)) {
      failure = catchThrowableOfType(StatusRuntimeException.class, () -> call(HELLO));
      logged = log.records;
    }

    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(threads).doesNotContainKey("SayBye");
    assertThat(logged).hasSize(1);
    assertThat(logged.get(0).getLevel()).isEqualTo(Level.WARNING);
    assertThat(logged.get(0).getThrown())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "Blocking call to test.Greeter/SayBye (a blocking stub) on the transport thread"
                + " from non-blocking method test.Greeter/SayHello");
  }

  @Test
  void futureGetAndAwaitTerminationAreRefusedToo() throws Exception {
    List<String> refused = new CopyOnWriteArrayList<>();
    Greeter greeter =
        new Greeter(threads) {
          @NonBlocking
          @Override
          public void sayHello(String request, StreamObserver<String> responses) {
            CompletableFuture<String> bye = ClientCalls.futureUnaryCall(new SilentCall(), "x");
            refused.add(refusal(bye::get));
            refused.add(refusal(bye::join));
            refused.add(refusal(() -> server.awaitTermination(1, TimeUnit.SECONDS)));
            refused.add(refusal(() -> channel.awaitTermination(1, TimeUnit.SECONDS)));
            responses.onNext("hello");
            responses.onCompleted();
          }
        };
    start(builder().addService(greeter));

    assertThat(call(HELLO)).isEqualTo("hello");

    assertThat(refused)
        .containsExactly(
            "the call future's get()",
            "the call future's join()",
            "Server.awaitTermination",
            "ManagedChannel.awaitTermination");
  }

  /** A call that never answers: its future stays pending. */
  private static final class SilentCall extends ClientCall<String, String> {
    @Override
    public void start(Listener<String> responseListener, Metadata headers) {}

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(String message) {}
  }

  /** What {@code wait} was refused as, from the exception's message, or what it did instead. */
  private static String refusal(Callable<?> wait) {
    try {
      return "not refused: " + wait.call();
    } catch (IllegalStateException e) {
      String message = e.getMessage();
      String suffix = " on the transport thread from non-blocking method test.Greeter/SayHello";
      int end = message.indexOf(suffix);
      return end < 0 ? message : message.substring("Blocking call ".length(), end);
    } catch (Exception | Error e) {
      return "failed: " + e;
    }
  }

  @Test
  void blockingStubOutsideNonBlockingMethodsStillWorks() throws Exception {
    Greeter greeter =
        new NonBlockingHello(threads) {
          @Override
          public void sayBye(String request, StreamObserver<String> responses) {
            // On the executor: blocking is allowed, even on a call to a non-blocking method.
            responses.onNext("relayed " + call(HELLO));
            responses.onCompleted();
          }
        };
    start(builder().addService(greeter));

    assertThat(call(BYE)).isEqualTo("relayed hello you");
    assertThat(threads).containsEntry("SayHello", EXECUTOR_THREAD);
  }

  @Test
  void unknownNamesFailAtBuildNamingEachOne() {
    ServerBuilder<?> builder =
        builder()
            .addService(new Greeter(threads))
            .nonBlocking("test.Greeter/SayHello")
            .nonBlocking("test.Greeter/Typo")
            .nonBlocking("test.Other");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no added service or method is named test.Greeter/Typo, test.Other");
  }

  @Test
  void annotatedMethodServingNoMethodFailsWhenAdded() {
    Greeter greeter =
        new Greeter(threads) {
          @NonBlocking
          public void helper() {}
        };

    assertThatThrownBy(() -> builder().addService(greeter))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@NonBlocking on ")
        .hasMessageContaining(".helper, which serves no method of test.Greeter");
  }
}
