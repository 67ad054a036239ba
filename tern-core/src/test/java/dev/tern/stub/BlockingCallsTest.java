package dev.tern.stub;

import static dev.tern.MethodDescriptor.MethodType.BIDI_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.CLIENT_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.SERVER_STREAMING;
import static dev.tern.MethodDescriptor.MethodType.UNARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.CallOptions;
import dev.tern.ForwardingServerCall;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** The blocking server methods and blocking client calls against an in-process server. */
class BlockingCallsTest {
  private static final MethodDescriptor<String, String> ECHO = StringMarshaller.method(UNARY);
  private static final MethodDescriptor<String, String> COUNT =
      StringMarshaller.method(SERVER_STREAMING);
  private static final MethodDescriptor<String, String> JOIN =
      StringMarshaller.method(CLIENT_STREAMING);
  private static final MethodDescriptor<String, String> CHAT =
      StringMarshaller.method(BIDI_STREAMING);

  private Server server;
  private ManagedChannel channel;

  /** Serves {@code handler} for {@code method}, through {@code interceptors}, and connects. */
  private void serve(
      MethodDescriptor<String, String> method,
      ServerCallHandler<String, String> handler,
      ServerInterceptor... interceptors)
      throws Exception {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Echo").addMethod(method, handler).build();
    String name = InProcessServerBuilder.generateName();
    server =
        InProcessServerBuilder.forName(name)
            .addService(ServerInterceptors.intercept(service, interceptors))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  private BlockingClientCall<String, String> chat() {
    return ClientCalls.blockingBidiStreamingCall(channel, CHAT, CallOptions.DEFAULT);
  }

  @Test
  void unary_returnsTheMethodsResponse() throws Exception {
    serve(ECHO, BlockingServerCalls.unaryCall(request -> request + "!"));

    assertThat(ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "hi"))
        .isEqualTo("hi!");
  }

  /**
   * The blocking handler's callbacks only wake the method's thread, so the runtime runs them on the
   * transport's thread: the server's executor gets no task for the call. An interceptor in front of
   * the handler runs on the executor as always.
   */
  @Test
  void callbacksSkipTheServersExecutorUnlessIntercepted() throws Exception {
    AtomicInteger tasks = new AtomicInteger();
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("test.Echo")
            .addMethod(ECHO, BlockingServerCalls.unaryCall(request -> request + "!"))
            .build();
    ServerInterceptor passThrough =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return next.startCall(call, headers);
          }
        };
    List<Integer> tasksPerCall = new ArrayList<>();
    for (ServerServiceDefinition served :
        List.of(service, ServerInterceptors.intercept(service, passThrough))) {
      String name = InProcessServerBuilder.generateName();
      server =
          InProcessServerBuilder.forName(name)
              .executor(
                  task -> {
                    tasks.incrementAndGet();
                    new Thread(task).start();
                  })
              .addService(served)
              .build()
              .start();
      channel = InProcessChannelBuilder.forName(name).build();
      tasks.set(0);
      assertThat(ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "hi"))
          .isEqualTo("hi!");
      tasksPerCall.add(tasks.get());
      shutDown();
    }

    assertThat(tasksPerCall.get(0)).as("tasks on the server's executor, not intercepted").isZero();
    assertThat(tasksPerCall.get(1)).as("tasks on the server's executor, intercepted").isPositive();
  }

  @Test
  void serverStreaming_readsEveryResponseThenNull() throws Exception {
    serve(
        COUNT,
        BlockingServerCalls.serverStreamingCall(
            (request, out) -> {
              for (int i = 0; i < Integer.parseInt(request); i++) {
                out.write("n" + i);
              }
            }));

    BlockingClientCall<String, String> call =
        ClientCalls.blockingV2ServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, "3");
    assertThat(List.of(call.read(), call.read(), call.read())).containsExactly("n0", "n1", "n2");
    assertThat(call.read()).isNull();
    assertThat(call.hasNext()).isFalse();
    assertThat(call.getClosedStatus().isOk()).isTrue();
  }

  @Test
  void clientStreaming_readsUntilHalfClose() throws Exception {
    serve(
        JOIN,
        BlockingServerCalls.clientStreamingCall(
            in -> {
              StringBuilder joined = new StringBuilder();
              for (String s = in.read(); s != null; s = in.read()) {
                joined.append(s);
              }
              return joined.toString();
            }));

    BlockingClientCall<String, String> call =
        ClientCalls.blockingClientStreamingCall(channel, JOIN, CallOptions.DEFAULT);
    for (String part : List.of("a", "b", "c")) {
      assertThat(call.write(part)).isTrue();
    }
    call.halfClose();
    assertThat(call.read()).isEqualTo("abc");
    assertThat(call.read()).isNull();
  }

  @Test
  void bidi_answersEachRequestInTurn() throws Exception {
    serve(
        CHAT,
        BlockingServerCalls.bidiStreamingCall(
            (in, out) -> {
              for (String s = in.read(); s != null; s = in.read()) {
                out.write(s.toUpperCase(java.util.Locale.ROOT));
              }
            }));

    BlockingClientCall<String, String> call = chat();
    for (String word : List.of("one", "two")) {
      call.write(word);
      assertThat(call.read()).isEqualTo(word.toUpperCase(java.util.Locale.ROOT));
    }
    call.halfClose();
    assertThat(call.read()).isNull();
    assertThatThrownBy(() -> call.write("late")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void serverWriter_sendsOnlyWhileReady_andBlocksForASlowReader() throws Exception {
    int total = 10_000;
    AtomicInteger sentWhileNotReady = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    CompletableFuture<Integer> sentWhenFirstNotReady = new CompletableFuture<>();
    ServerInterceptor countSends =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            return next.startCall(
                new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                  @Override
                  public void sendMessage(RespT message) {
                    if (!isReady()) {
                      sentWhileNotReady.incrementAndGet();
                    }
                    sent.incrementAndGet();
                    super.sendMessage(message);
                  }
                },
                headers);
          }
        };
    serve(
        COUNT,
        BlockingServerCalls.serverStreamingCall(
            (request, out) -> {
              for (int i = 0; i < total; i++) {
                if (!out.isReady()) {
                  sentWhenFirstNotReady.complete(sent.get());
                }
                out.write(Integer.toString(i));
              }
            }),
        countSends);

    BlockingClientCall<String, String> call =
        ClientCalls.blockingV2ServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, "go");
    // Nothing read yet: the writer has to stop long before the end.
    assertThat(sentWhenFirstNotReady.get(5, TimeUnit.SECONDS)).isLessThan(total);
    for (int i = 0; i < total; i++) {
      assertThat(call.read()).isEqualTo(Integer.toString(i));
    }
    assertThat(call.read()).isNull();
    assertThat(sent.get()).isEqualTo(total);
    assertThat(sentWhileNotReady.get()).isZero();
  }

  @Test
  void clientWrite_waitsUntilTheServerReads() throws Exception {
    CountDownLatch readOne = new CountDownLatch(1);
    serve(
        CHAT,
        BlockingServerCalls.bidiStreamingCall(
            (in, out) -> {
              readOne.await();
              out.write("got " + in.read());
            }));

    BlockingClientCall<String, String> call = chat();
    // The server method has not read: nothing was asked for, so the call cannot take a message.
    assertThat(call.isWriteReady()).isFalse();
    assertThatThrownBy(() -> call.write("early", 50, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    readOne.countDown();
    assertThat(call.write("first")).isTrue();
    assertThat(call.read()).isEqualTo("got first");
    assertThat(call.read()).isNull();
    assertThat(call.write("after the end")).isFalse();
  }

  @Test
  void clientCancel_interruptsTheBlockedMethod_andItsReaderThrowsCancelled() throws Exception {
    CompletableFuture<Throwable> readFailure = new CompletableFuture<>();
    CountDownLatch reading = new CountDownLatch(1);
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    serve(
        CHAT,
        BlockingServerCalls.bidiStreamingCall(
            (in, out) -> {
              try {
                reading.countDown();
                in.read();
                readFailure.complete(null);
              } catch (StatusException e) {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
                readFailure.complete(e);
              }
            }));

    BlockingClientCall<String, String> call = chat();
    reading.await();
    call.cancel("user gave up", null);

    assertThat(readFailure.get(5, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.CANCELLED));
    assertThat(stillInterrupted).isTrue();
    assertThatThrownBy(call::read)
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getDescription()).isEqualTo("user gave up"));
  }

  @Test
  void deadline_interruptsAMethodBlockedElsewhere() throws Exception {
    CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
    serve(
        ECHO,
        BlockingServerCalls.unaryCall(
            request -> {
              try {
                new CountDownLatch(1).await(); // blocked outside Tern
                return "never";
              } catch (InterruptedException e) {
                interrupted.complete(e);
                throw e;
              }
            }));

    CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(100, TimeUnit.MILLISECONDS);
    assertThatThrownBy(() -> ClientCalls.blockingV2UnaryCall(channel, ECHO, options, "x"))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    assertThat(interrupted.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
  }

  @Test
  void interruptedClientReader_cancelsTheCall() throws Exception {
    CompletableFuture<Throwable> serverSaw = new CompletableFuture<>();
    CountDownLatch reading = new CountDownLatch(1);
    serve(
        CHAT,
        BlockingServerCalls.bidiStreamingCall(
            (in, out) -> {
              try {
                reading.countDown();
                in.read();
              } catch (StatusException e) {
                serverSaw.complete(e);
              }
            }));

    BlockingClientCall<String, String> call = chat();
    reading.await(); // else the call may end before the method starts, and it never runs
    Thread.currentThread().interrupt();
    assertThatThrownBy(call::read).isInstanceOf(InterruptedException.class);

    assertThat(Thread.interrupted()).isFalse();
    assertThat(Status.fromThrowable(serverSaw.get(5, TimeUnit.SECONDS)).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    assertThatThrownBy(call::read)
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getDescription()).isEqualTo("Thread interrupted"));
  }

  @Test
  void methodThrowingStatus_closesWithIt_otherExceptionsAreUnknownAndLogged() throws Exception {
    Metadata.Key<String> detail = Metadata.Key.of("detail", Metadata.ASCII_STRING_MARSHALLER);
    serve(
        ECHO,
        BlockingServerCalls.unaryCall(
            request -> {
              if (request.equals("status")) {
                Metadata trailers = new Metadata();
                trailers.put(detail, "why");
                throw Status.NOT_FOUND.withDescription("no such thing").asException(trailers);
              }
              throw new IllegalStateException("secret internals");
            }));

    assertThatThrownBy(
            () -> ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "status"))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getTrailers().get(detail)).isEqualTo("why");
            });
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger logger = Logger.getLogger(BlockingServerCalls.class.getName());
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.setUseParentHandlers(false);
    logger.addHandler(capture);
    try {
      assertThatThrownBy(
              () -> ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "boom"))
          .isInstanceOfSatisfying(
              StatusException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("Application error processing RPC");
              });
    } finally {
      logger.removeHandler(capture);
      logger.setUseParentHandlers(true);
    }
    assertThat(logged)
        .singleElement()
        .satisfies(r -> assertThat(r.getThrown()).hasMessage("secret internals"));
  }

  @Test
  void refusingExecutor_failsTheCallResourceExhausted() throws Exception {
    serve(
        ECHO,
        BlockingServerCalls.unaryCall(
            request -> request,
            task -> {
              throw new RejectedExecutionException("full");
            }));

    assertThatThrownBy(
            () -> ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "x"))
        .isInstanceOfSatisfying(
            StatusException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void unimplemented_namesTheMethod() throws Exception {
    serve(
        ECHO,
        BlockingServerCalls.unaryCall(
            request -> {
              throw BlockingServerCalls.unimplemented(ECHO);
            }));

    assertThatThrownBy(
            () -> ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "x"))
        .isInstanceOfSatisfying(
            StatusException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .isEqualTo("Method test.Echo/UNARY is unimplemented"));
  }

  @Test
  void aThousandCallsBlockedAtOnce_allComplete() throws Exception {
    int calls = 1_000;
    // Every call can block at the same time on virtual threads; the pool holds POOL_SIZE of them.
    int concurrent =
        BlockingExecutors.virtualThreadsAvailable()
            ? calls
            : Math.min(calls, BlockingExecutors.POOL_SIZE);
    CountDownLatch blocked = new CountDownLatch(concurrent);
    CountDownLatch release = new CountDownLatch(1);
    serve(
        ECHO,
        BlockingServerCalls.unaryCall(
            request -> {
              blocked.countDown();
              release.await();
              return request;
            }));

    List<CompletableFuture<String>> responses = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      responses.add(
          ClientCalls.futureUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), "r" + i));
    }
    assertThat(blocked.await(30, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    for (int i = 0; i < calls; i++) {
      assertThat(responses.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("r" + i);
    }
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void onJdk21AndLater_eachMethodRunsOnAVirtualThread() throws Exception {
    serve(ECHO, BlockingServerCalls.unaryCall(request -> Boolean.toString(isVirtual())));

    assertThat(BlockingExecutors.virtualThreadsAvailable()).isTrue();
    assertThat(ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "x"))
        .isEqualTo("true");
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20)
  void beforeJdk21_methodsRunOnTheBoundedPool() throws Exception {
    serve(ECHO, BlockingServerCalls.unaryCall(request -> Thread.currentThread().getName()));

    assertThat(BlockingExecutors.virtualThreadsAvailable()).isFalse();
    assertThat(ClientCalls.blockingV2UnaryCall(channel, ECHO, CallOptions.DEFAULT, "x"))
        .startsWith("tern-blocking-");
  }

  private static boolean isVirtual() throws ReflectiveOperationException {
    return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
  }
}
