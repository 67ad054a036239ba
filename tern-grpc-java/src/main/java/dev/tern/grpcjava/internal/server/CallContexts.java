package dev.tern.grpcjava.internal.server;

import dev.tern.grpcjava.internal.convert.Deadlines;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * Makes the {@code io.grpc.Context} a grpc-java handler runs in: a cancellable context under {@code
 * io.grpc.Context.ROOT} (filtered by the call's grpc-java server stream tracers, see {@link
 * GrpcJavaServerTracers}), with the Tern call's deadline when it has one, cancelled when Tern
 * cancels the call's own context (the client cancelled, the deadline passed, the call ended).
 *
 * <p>grpc-java's contexts need a scheduler to expire at their deadline: one daemon thread shared by
 * all servers of the JVM, made on first use; a context that ends before its deadline cancels its
 * timer, which is then removed from the queue. Thread-safe.
 */
final class CallContexts {
  private CallContexts() {}

  /**
   * The io.grpc context for the Tern call whose context is {@code tern}, under {@code callRoot}
   * (the server's context, {@code ROOT} holding the bridged server; never null, as Tern takes calls
   * only once the server is built).
   */
  static io.grpc.Context.CancellableContext forCall(
      dev.tern.Context tern, io.grpc.Context callRoot) {
    io.grpc.Context parent = GrpcJavaServerTracers.base(tern, callRoot);
    io.grpc.Context.CancellableContext context =
        tern.getDeadline() == null
            ? parent.withCancellation()
            : parent.withDeadline(Deadlines.toGrpc(tern.getDeadline()), Scheduler.INSTANCE);
    tern.addListener(cancelled -> context.cancel(cancelled.cancellationCause()), Runnable::run);
    return context;
  }

  /** The shared timer, made when first needed (class initialisation is lazy and thread-safe). */
  private static final class Scheduler {
    static final ScheduledExecutorService INSTANCE = create();

    private static ScheduledExecutorService create() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread thread = new Thread(task, "tern-grpc-java-context-deadlines");
                thread.setDaemon(true);
                return thread;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }
}
