package dev.tern.interop.xds;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Status;
import dev.tern.interop.testing.ClientConfigureRequest.RpcType;
import dev.tern.interop.testing.Empty;
import dev.tern.interop.testing.SimpleRequest;
import dev.tern.interop.testing.SimpleResponse;
import dev.tern.interop.testing.TestServiceTern;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The xDS test client's open loop: on every channel, {@code qps} times a second on the scheduler's
 * clock (whatever the RPCs in flight do), starts one RPC of each type the current {@link
 * ClientConfig} names, and reports each RPC's start and end to {@link ClientStats} and to an {@link
 * Observer}. The peer of an RPC is its {@code hostname} response header, else the {@code hostname}
 * of its {@code SimpleResponse}.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} from one thread; the RPCs' callbacks come from
 * the channels' threads and touch only thread-safe state.
 */
final class RpcSender {
  /** Told of every RPC that ended. Called from the channels' threads, concurrently. */
  interface Observer {
    void completed(RpcType type, Status status, String peer);
  }

  private final List<? extends Channel> channels;
  private final int qps;
  private final ScheduledExecutorService scheduler;
  private final Supplier<ClientConfig> config;
  private final ClientStats stats;
  private final Observer observer;
  private final List<ScheduledFuture<?>> ticks = new ArrayList<>();

  RpcSender(
      List<? extends Channel> channels,
      int qps,
      ScheduledExecutorService scheduler,
      Supplier<ClientConfig> config,
      ClientStats stats,
      Observer observer) {
    this.channels = List.copyOf(channels);
    this.qps = qps;
    this.scheduler = scheduler;
    this.config = config;
    this.stats = stats;
    this.observer = observer;
  }

  void start() {
    long periodNanos = TimeUnit.SECONDS.toNanos(1) / qps;
    for (Channel channel : channels) {
      ticks.add(
          scheduler.scheduleAtFixedRate(() -> tick(channel), 0, periodNanos, TimeUnit.NANOSECONDS));
    }
  }

  void stop() {
    ticks.forEach(tick -> tick.cancel(false));
  }

  private void tick(Channel channel) {
    ClientConfig current = config.get();
    for (RpcType type : current.types()) {
      if (type == RpcType.EMPTY_CALL) {
        send(
            channel,
            TestServiceTern.getEmptyCallMethod(),
            Empty.getDefaultInstance(),
            type,
            current);
      } else {
        SimpleRequest request = SimpleRequest.newBuilder().setFillServerId(true).build();
        send(channel, TestServiceTern.getUnaryCallMethod(), request, type, current);
      }
    }
  }

  private <ReqT, RespT> void send(
      Channel channel,
      MethodDescriptor<ReqT, RespT> method,
      ReqT request,
      RpcType type,
      ClientConfig current) {
    List<StatsWatcher> watchers = stats.started(type);
    ClientCall<ReqT, RespT> call =
        channel.newCall(
            method, CallOptions.DEFAULT.withDeadlineAfter(current.timeoutSec(), TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          private volatile String peer;

          @Override
          public void onHeaders(Metadata headers) {
            peer = headers.get(RpcBehaviorInterceptor.HOSTNAME);
          }

          @Override
          public void onMessage(RespT message) {
            if (peer == null
                && message instanceof SimpleResponse response
                && !response.getHostname().isEmpty()) {
              peer = response.getHostname();
            }
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            String named = status.isOk() ? peer : null;
            stats.completed(type, status.getCode());
            String methodName = ClientConfig.methodName(type);
            for (StatsWatcher watcher : watchers) {
              watcher.record(methodName, named);
            }
            observer.completed(type, status, named);
          }
        },
        current.headersFor(type));
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
  }
}
