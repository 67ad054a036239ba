package dev.tern.examples.hello;

import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.Server;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts a greeter server and calls it with all four call types: unary, server streaming, client
 * streaming and bidirectional streaming. Messages are plain UTF-8 strings, so the example needs no
 * code generation; the server and client run in one JVM over the in-process transport.
 */
public final class HelloDemo {
  private static final MethodDescriptor.Marshaller<String> UTF8 =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  static final MethodDescriptor<String, String> SAY_HELLO = method("SayHello", MethodType.UNARY);
  static final MethodDescriptor<String, String> COUNT_DOWN =
      method("CountDown", MethodType.SERVER_STREAMING);
  static final MethodDescriptor<String, String> JOIN_NAMES =
      method("JoinNames", MethodType.CLIENT_STREAMING);
  static final MethodDescriptor<String, String> CHAT = method("Chat", MethodType.BIDI_STREAMING);

  private HelloDemo() {}

  private static MethodDescriptor<String, String> method(String name, MethodType type) {
    return MethodDescriptor.newBuilder(UTF8, UTF8)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("tern.examples.Greeter", name))
        .setType(type)
        .build();
  }

  /** The server side: four handlers. */
  static ServerServiceDefinition greeterService() {
    return ServerServiceDefinition.builder("tern.examples.Greeter")
        .addMethod(
            SAY_HELLO,
            ServerCalls.asyncUnaryCall(
                (String name, StreamObserver<String> responses) -> {
                  if (name.isEmpty()) {
                    responses.onError(
                        Status.INVALID_ARGUMENT.withDescription("name is empty").asException());
                    return;
                  }
                  responses.onNext("Hello, " + name + "!");
                  responses.onCompleted();
                }))
        .addMethod(
            COUNT_DOWN,
            ServerCalls.asyncServerStreamingCall(
                (String from, StreamObserver<String> responses) -> {
                  for (int i = Integer.parseInt(from); i > 0; i--) {
                    responses.onNext(Integer.toString(i));
                  }
                  responses.onNext("lift-off");
                  responses.onCompleted();
                }))
        .addMethod(
            JOIN_NAMES,
            ServerCalls.asyncClientStreamingCall(
                (StreamObserver<String> responses) ->
                    new StreamObserver<String>() {
                      private final List<String> names = new ArrayList<>();

                      @Override
                      public void onNext(String name) {
                        names.add(name);
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        responses.onNext(String.join(" & ", names));
                        responses.onCompleted();
                      }
                    }))
        .addMethod(
            CHAT,
            ServerCalls.asyncBidiStreamingCall(
                (StreamObserver<String> responses) ->
                    new StreamObserver<String>() {
                      @Override
                      public void onNext(String line) {
                        responses.onNext("you said: " + line);
                      }

                      @Override
                      public void onError(Throwable t) {}

                      @Override
                      public void onCompleted() {
                        responses.onCompleted();
                      }
                    }))
        .build();
  }

  public static void main(String[] args) throws Exception {
    String name = InProcessServerBuilder.generateName();
    Server server =
        InProcessServerBuilder.forName(name).addService(greeterService()).build().start();
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    try {
      runClient(channel);
    } finally {
      channel.shutdown();
      server.shutdown();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  static void runClient(ManagedChannel channel) throws Exception {
    dev.tern.CallOptions options =
        dev.tern.CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS);

    System.out.println(
        "unary:            " + ClientCalls.blockingUnaryCall(channel, SAY_HELLO, options, "Tern"));
    try {
      ClientCalls.blockingUnaryCall(channel, SAY_HELLO, options, "");
    } catch (StatusRuntimeException e) {
      System.out.println(
          "unary (error):    " + e.getStatus().getCode() + " " + e.getStatus().getDescription());
    }

    List<String> countdown = new ArrayList<>();
    Iterator<String> it =
        ClientCalls.blockingServerStreamingCall(channel, COUNT_DOWN, options, "3");
    it.forEachRemaining(countdown::add);
    System.out.println("server streaming: " + countdown);

    CompletableFuture<String> joined = new CompletableFuture<>();
    StreamObserver<String> names =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(JOIN_NAMES, options), new FutureObserver(joined));
    names.onNext("Ada");
    names.onNext("Grace");
    names.onNext("Barbara");
    names.onCompleted();
    System.out.println("client streaming: " + joined.get(5, TimeUnit.SECONDS));

    List<String> replies = new ArrayList<>();
    CompletableFuture<String> chatDone = new CompletableFuture<>();
    StreamObserver<String> chat =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(CHAT, options),
            new StreamObserver<String>() {
              @Override
              public void onNext(String reply) {
                synchronized (replies) {
                  replies.add(reply);
                }
              }

              @Override
              public void onError(Throwable t) {
                chatDone.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                chatDone.complete("done");
              }
            });
    chat.onNext("hi");
    chat.onNext("how are you?");
    chat.onCompleted();
    chatDone.get(5, TimeUnit.SECONDS);
    synchronized (replies) {
      System.out.println("bidi streaming:   " + replies);
    }
  }

  /** Completes a future with the single response of a call. */
  private static final class FutureObserver implements StreamObserver<String> {
    private final CompletableFuture<String> future;
    private String value;

    FutureObserver(CompletableFuture<String> future) {
      this.future = future;
    }

    @Override
    public void onNext(String v) {
      value = v;
    }

    @Override
    public void onError(Throwable t) {
      future.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      future.complete(value);
    }
  }
}
