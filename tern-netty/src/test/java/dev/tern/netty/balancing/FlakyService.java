package dev.tern.netty.balancing;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.netty.NettyServerBuilder;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A service that fails on cue: each call it receives takes the next {@link Reply} of its script (OK
 * once the script is used up), and answers only once the client has half-closed, so a failure comes
 * after the server has read every request. It records each call as an {@link Attempt}: its {@code
 * grpc-previous-rpc-attempts} header, the requests it read, and when it arrived and when the server
 * closed it. Both methods answer with the number of requests read.
 *
 * <p>Thread-safe.
 */
final class FlakyService {
  static final String SERVICE = "tern.test.Flaky";

  /** One request in, the count ("1") out. */
  static final MethodDescriptor<String, String> UNARY = method("Unary", MethodType.UNARY);

  /** Any number of requests in, their count out. */
  static final MethodDescriptor<String, String> UPLOAD =
      method("Upload", MethodType.CLIENT_STREAMING);

  /** How the server ends one call: OK, or {@code code} with an optional pushback trailer. */
  record Reply(Status.Code code, String pushbackMillis) {
    static final Reply OK = new Reply(Status.Code.OK, null);

    static Reply fail(Status.Code code) {
      return new Reply(code, null);
    }

    static Reply fail(Status.Code code, String pushbackMillis) {
      return new Reply(code, pushbackMillis);
    }
  }

  /** One call as the server saw it. Times are {@link System#nanoTime()}. */
  record Attempt(
      String previousAttempts, List<String> requests, long arrivedNanos, long closedNanos) {}

  static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private final Deque<Reply> script = new ArrayDeque<>();
  private final List<Attempt> attempts = new ArrayList<>();

  /** A service that answers its calls with {@code replies} in turn, then OK. */
  FlakyService(Reply... replies) {
    script.addAll(List.of(replies));
  }

  /**
   * Serves this service on a Tern server on 127.0.0.1 (a free port), shut down by {@code cleanup}.
   */
  Server serve(TernCleanupExtension cleanup) throws IOException {
    return cleanup.register(
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(definition())
            .build()
            .start());
  }

  /** Every call it closed, in order. */
  synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, this::startCall)
        .addMethod(UPLOAD, this::startCall)
        .build();
  }

  private synchronized Reply nextReply() {
    Reply next = script.poll();
    return next != null ? next : Reply.OK;
  }

  private synchronized void record(Attempt attempt) {
    attempts.add(attempt);
  }

  private ServerCall.Listener<String> startCall(ServerCall<String, String> call, Metadata headers) {
    long arrived = System.nanoTime();
    String previous = headers.get(AttemptLog.PREVIOUS_ATTEMPTS);
    List<String> requests = new ArrayList<>();
    call.request(1);
    return new ServerCall.Listener<>() {
      @Override
      public void onMessage(String message) {
        requests.add(message);
        call.request(1);
      }

      @Override
      public void onHalfClose() {
        Reply reply = nextReply();
        Metadata trailers = new Metadata();
        Status status = Status.fromCode(reply.code());
        if (reply.code() == Status.Code.OK) {
          call.sendHeaders(new Metadata());
          call.sendMessage(Integer.toString(requests.size()));
        } else {
          status = status.withDescription("failing on cue");
          if (reply.pushbackMillis() != null) {
            trailers.put(PUSHBACK, reply.pushbackMillis());
          }
        }
        record(new Attempt(previous, List.copyOf(requests), arrived, System.nanoTime()));
        call.close(status, trailers);
      }
    };
  }

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setType(type)
        .build();
  }
}
