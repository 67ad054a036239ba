package dev.tern.xds.internal.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UInt32Value;
import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.ClientInterceptors;
import dev.tern.Context;
import dev.tern.Deadline;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.Status;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.testing.EchoService;
import dev.tern.testing.FakeClock;
import io.envoyproxy.envoy.extensions.filters.common.fault.v3.FaultDelay;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.FaultAbort;
import io.envoyproxy.envoy.extensions.filters.http.fault.v3.HTTPFault;
import io.envoyproxy.envoy.type.v3.FractionalPercent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fault filter's decisions and their effects on real in-process calls, with the delays on a
 * {@link FakeClock} and the randomness injected.
 */
class FaultInjectionTest {
  private final FakeClock clock = new FakeClock();
  private final AtomicInteger serverCalls = new AtomicInteger();
  private final AtomicLong activeFaults = new AtomicLong();
  private long nextRandom;
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    ServerInterceptor counting =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            serverCalls.incrementAndGet();
            return next.startCall(call, headers);
          }
        };
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(ServerInterceptors.intercept(EchoService.definition(), counting))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  private static FractionalPercent percent(int n, FractionalPercent.DenominatorType d) {
    return FractionalPercent.newBuilder().setNumerator(n).setDenominator(d).build();
  }

  private static FractionalPercent all() {
    return percent(100, FractionalPercent.DenominatorType.HUNDRED);
  }

  private static FaultDelay.Builder fixedDelay(long seconds) {
    return FaultDelay.newBuilder()
        .setFixedDelay(com.google.protobuf.Duration.newBuilder().setSeconds(seconds))
        .setPercentage(all());
  }

  private Channel through(HTTPFault fault) throws FilterConfigException {
    FaultInterceptor interceptor =
        new FaultInterceptor(
            FaultFilter.parse(fault), new FilterContext(clock, bound -> nextRandom), activeFaults);
    return ClientInterceptors.intercept(channel, interceptor);
  }

  /** A unary call's result: its status, with the response in the description when OK. */
  private static CompletableFuture<Status> call(Channel ch, CallOptions options, Metadata headers) {
    CompletableFuture<Status> done = new CompletableFuture<>();
    ClientCall<String, String> call = ch.newCall(EchoService.UNARY, options);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            done.complete(status);
          }
        },
        headers);
    call.request(2);
    call.sendMessage("hi");
    call.halfClose();
    return done;
  }

  private static CompletableFuture<Status> call(Channel ch) {
    return call(ch, CallOptions.DEFAULT, new Metadata());
  }

  private static Status get(CompletableFuture<Status> f) throws Exception {
    return f.get(5, TimeUnit.SECONDS);
  }

  @Test
  void abortWithGrpcStatusFailsTheCallWithoutSendingIt() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setAbort(FaultAbort.newBuilder().setGrpcStatus(14).setPercentage(all()))
                .build());
    Status status = get(call(ch));
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).isEqualTo("injected by xDS fault injection");
    assertThat(serverCalls).hasValue(0);
    assertThat(activeFaults).hasValue(0);
  }

  @Test
  void httpStatusesMapToGrpcCodes() throws Exception {
    int[] http = {200, 400, 401, 403, 404, 429, 502, 503, 504, 500};
    Status.Code[] grpc = {
      Status.Code.UNKNOWN,
      Status.Code.INTERNAL,
      Status.Code.UNAUTHENTICATED,
      Status.Code.PERMISSION_DENIED,
      Status.Code.UNIMPLEMENTED,
      Status.Code.UNAVAILABLE,
      Status.Code.UNAVAILABLE,
      Status.Code.UNAVAILABLE,
      Status.Code.UNAVAILABLE,
      Status.Code.UNKNOWN
    };
    for (int i = 0; i < http.length; i++) {
      Channel ch =
          through(
              HTTPFault.newBuilder()
                  .setAbort(FaultAbort.newBuilder().setHttpStatus(http[i]).setPercentage(all()))
                  .build());
      Status status = get(call(ch));
      assertThat(status.getCode()).as("HTTP %d", http[i]).isEqualTo(grpc[i]);
      assertThat(status.getDescription()).contains("HTTP status " + http[i]);
    }
    assertThat(serverCalls).hasValue(0);
  }

  @Test
  void abortPercentageUsesTheRandomDraw() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setAbort(
                    FaultAbort.newBuilder()
                        .setGrpcStatus(8)
                        .setPercentage(
                            percent(5000, FractionalPercent.DenominatorType.TEN_THOUSAND)))
                .build());
    nextRandom = 499_999; // 50% is 500000 per million: below it aborts
    assertThat(get(call(ch)).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    nextRandom = 500_000;
    assertThat(get(call(ch)).isOk()).isTrue();
    assertThat(serverCalls).hasValue(1);
  }

  @Test
  void fixedDelayHoldsTheCallThenSendsIt() throws Exception {
    Channel ch = through(HTTPFault.newBuilder().setDelay(fixedDelay(5)).build());
    CompletableFuture<Status> result = call(ch);
    clock.forwardTime(4, TimeUnit.SECONDS);
    assertThat(result).isNotDone();
    assertThat(serverCalls).hasValue(0);
    assertThat(activeFaults).hasValue(1);
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(get(result).isOk()).isTrue();
    assertThat(serverCalls).hasValue(1);
    assertThat(activeFaults).hasValue(0);
  }

  @Test
  void delayThenAbort() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setDelay(fixedDelay(2))
                .setAbort(FaultAbort.newBuilder().setGrpcStatus(10).setPercentage(all()))
                .build());
    CompletableFuture<Status> result = call(ch);
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(result).isNotDone();
    clock.forwardTime(1, TimeUnit.SECONDS);
    assertThat(get(result).getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(serverCalls).hasValue(0);
  }

  @Test
  void deadlineBeforeTheDelayEndsFailsDeadlineExceededWithoutSending() throws Exception {
    Channel ch = through(HTTPFault.newBuilder().setDelay(fixedDelay(5)).build());
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(Deadline.after(1, TimeUnit.SECONDS, clock.getTicker()));
    CompletableFuture<Status> result = call(ch, options, new Metadata());
    clock.forwardTime(999, TimeUnit.MILLISECONDS);
    assertThat(result).isNotDone();
    clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(get(result).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(serverCalls).hasValue(0);
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void cancelDuringTheDelayEndsTheCallAndItsTimer() throws Exception {
    Channel ch = through(HTTPFault.newBuilder().setDelay(fixedDelay(5)).build());
    CompletableFuture<Status> done = new CompletableFuture<>();
    ClientCall<String, String> call = ch.newCall(EchoService.UNARY, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            done.complete(status);
          }
        },
        new Metadata());
    call.sendMessage("hi");
    call.cancel("user gave up", null);
    Status status = get(done);
    assertThat(status.getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(status.getDescription()).isEqualTo("user gave up");
    assertThat(clock.numPendingTasks()).isZero();
    assertThat(serverCalls).hasValue(0);
    assertThat(activeFaults).hasValue(0);
  }

  @Test
  void aCancelledContextEndsTheDelay() throws Exception {
    Channel ch = through(HTTPFault.newBuilder().setDelay(fixedDelay(5)).build());
    Context.CancellableContext context = Context.current().withCancellation();
    CompletableFuture<Status> result = context.call(() -> call(ch));
    assertThat(result).isNotDone();
    context.cancel(new RuntimeException("caller went away"));
    assertThat(get(result).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(clock.numPendingTasks()).isZero();
    assertThat(serverCalls).hasValue(0);
    assertThat(activeFaults).hasValue(0);
  }

  private static Metadata headers(String... pairs) {
    Metadata m = new Metadata();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(Metadata.Key.of(pairs[i], Metadata.ASCII_STRING_MARSHALLER), pairs[i + 1]);
    }
    return m;
  }

  @Test
  void headerAbortTakesTheStatusFromTheRequest() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setAbort(
                    FaultAbort.newBuilder()
                        .setHeaderAbort(FaultAbort.HeaderAbort.getDefaultInstance())
                        .setPercentage(all()))
                .build());
    Status grpc =
        get(call(ch, CallOptions.DEFAULT, headers("x-envoy-fault-abort-grpc-request", "3")));
    assertThat(grpc.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(grpc.getDescription()).contains("fault injection");
    Status http = get(call(ch, CallOptions.DEFAULT, headers("x-envoy-fault-abort-request", "404")));
    assertThat(http.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    // Percentage header 0 (of the config's 100): no abort; invalid values are ignored.
    assertThat(
            get(call(
                    ch,
                    CallOptions.DEFAULT,
                    headers(
                        "x-envoy-fault-abort-grpc-request",
                        "3",
                        "x-envoy-fault-abort-request-percentage",
                        "0")))
                .isOk())
        .isTrue();
    assertThat(
            get(call(ch, CallOptions.DEFAULT, headers("x-envoy-fault-abort-grpc-request", "x")))
                .isOk())
        .isTrue();
    assertThat(get(call(ch)).isOk()).isTrue();
    assertThat(serverCalls).hasValue(3);
  }

  @Test
  void headerDelayTakesTheDelayFromTheRequestCappedPercentage() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setDelay(
                    FaultDelay.newBuilder()
                        .setHeaderDelay(FaultDelay.HeaderDelay.getDefaultInstance())
                        .setPercentage(percent(50, FractionalPercent.DenominatorType.HUNDRED)))
                .build());
    nextRandom = 400_000;
    CompletableFuture<Status> delayed =
        call(ch, CallOptions.DEFAULT, headers("x-envoy-fault-delay-request", "2000"));
    clock.forwardTime(1999, TimeUnit.MILLISECONDS);
    assertThat(delayed).isNotDone();
    clock.forwardTime(1, TimeUnit.MILLISECONDS);
    assertThat(get(delayed).isOk()).isTrue();
    // A percentage header of 90 is capped at the config's 50: a draw of 600000 is not delayed.
    nextRandom = 600_000;
    CompletableFuture<Status> capped =
        call(
            ch,
            CallOptions.DEFAULT,
            headers(
                "x-envoy-fault-delay-request",
                "2000",
                "x-envoy-fault-delay-request-percentage",
                "90"));
    assertThat(get(capped).isOk()).isTrue();
    assertThat(clock.numPendingTasks()).isZero();
  }

  @Test
  void maxActiveFaultsLetsCallsThroughWhileTheLimitIsReached() throws Exception {
    Channel ch =
        through(
            HTTPFault.newBuilder()
                .setDelay(fixedDelay(5))
                .setMaxActiveFaults(UInt32Value.of(1))
                .build());
    CompletableFuture<Status> first = call(ch);
    CompletableFuture<Status> second = call(ch);
    assertThat(get(second).isOk()).isTrue(); // not delayed: one fault is active
    assertThat(first).isNotDone();
    clock.forwardTime(5, TimeUnit.SECONDS);
    assertThat(get(first).isOk()).isTrue();
    CompletableFuture<Status> third = call(ch);
    assertThat(third).isNotDone(); // the first fault is over: delayed again
    clock.forwardTime(5, TimeUnit.SECONDS);
    assertThat(get(third).isOk()).isTrue();
  }
}
