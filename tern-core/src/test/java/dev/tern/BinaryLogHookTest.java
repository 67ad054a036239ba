package dev.tern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime's binary log hook, seen from a user: a server puts the log around the methods it
 * dispatches (outside its interceptors), a channel puts it below its interceptors.
 */
class BinaryLogHookTest {
  private static final MethodDescriptor.Marshaller<String> UTF8 =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
          return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
          try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<String, String> ECHO = unary("test.Echo/Echo");
  private static final MethodDescriptor<String, String> DYNAMIC = unary("test.Dynamic/Call");

  private final String name = InProcessServerBuilder.generateName();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private Server server;
  private ManagedChannel channel;

  private static MethodDescriptor<String, String> unary(String fullName) {
    return MethodDescriptor.newBuilder(UTF8, UTF8)
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullName)
        .build();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow();
      assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
    if (server != null) {
      server.shutdownNow();
      assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Replies with the request plus "!", noting that the handler ran. */
  private ServerCallHandler<String, String> echoHandler(String label) {
    return (call, headers) -> {
      events.add("handler " + label);
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(String message) {
          call.sendHeaders(new Metadata());
          call.sendMessage(message + "!");
          call.close(Status.OK, new Metadata());
        }
      };
    };
  }

  /** Notes each call it sees under {@code label}, then passes it on. */
  private ServerInterceptor serverInterceptor(String label) {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        events.add(label + " " + call.getMethodDescriptor().getFullMethodName());
        return next.startCall(call, headers);
      }
    };
  }

  private ClientInterceptor clientInterceptor(String label) {
    return new ClientInterceptor() {
      @Override
      public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
          MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Channel next) {
        events.add(label + " " + method.getFullMethodName());
        return next.newCall(method, callOptions);
      }
    };
  }

  /** A log that notes what it wraps and every call that passes through its wrappers. */
  private class RecordingBinaryLog extends BinaryLog {
    @Override
    public ServerMethodDefinition<?, ?> wrapMethodDefinition(ServerMethodDefinition<?, ?> method) {
      events.add("wrap " + method.getMethodDescriptor().getFullMethodName());
      return wrap(method);
    }

    private <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> wrap(
        ServerMethodDefinition<ReqT, RespT> method) {
      ServerCallHandler<ReqT, RespT> next = method.getServerCallHandler();
      return method.withServerCallHandler(
          (call, headers) -> {
            events.add("server log " + call.getMethodDescriptor().getFullMethodName());
            return next.startCall(call, headers);
          });
    }

    @Override
    public Channel wrapChannel(Channel channel) {
      events.add("wrap channel");
      return new Channel() {
        @Override
        public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
            MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
          events.add("client log " + method.getFullMethodName());
          return channel.newCall(method, callOptions);
        }

        @Override
        public String authority() {
          return channel.authority();
        }
      };
    }

    @Override
    public void close() {}
  }

  private String call(MethodDescriptor<String, String> method, String request) throws Exception {
    CompletableFuture<String> response = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(method, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(String message) {
            response.complete(message);
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            if (!status.isOk()) {
              response.completeExceptionally(status.asRuntimeException());
            }
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(request);
    call.halfClose();
    return response.get(5, TimeUnit.SECONDS);
  }

  private void startServer(BinaryLog log) throws IOException {
    ServerServiceDefinition echo =
        ServerServiceDefinition.builder("test.Echo").addMethod(ECHO, echoHandler("echo")).build();
    HandlerRegistry fallback =
        new HandlerRegistry() {
          @Override
          public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
            return methodName.equals(DYNAMIC.getFullMethodName())
                ? ServerMethodDefinition.create(DYNAMIC, echoHandler("dynamic"))
                : null;
          }
        };
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(echo)
            .fallbackHandlerRegistry(fallback)
            .intercept(serverInterceptor("server interceptor"))
            .setBinaryLog(log)
            .build()
            .start();
  }

  @Test
  void theServerLogsEveryMethodOutsideItsInterceptorsAndTheChannelBelowItsInterceptors()
      throws Exception {
    RecordingBinaryLog log = new RecordingBinaryLog();
    startServer(log);
    assertThat(events).containsExactly("wrap test.Echo/Echo");
    channel =
        InProcessChannelBuilder.forName(name)
            .directExecutor()
            .intercept(clientInterceptor("client interceptor"))
            .setBinaryLog(log)
            .build();
    assertThat(events).endsWith("wrap channel");
    events.clear();

    assertThat(call(ECHO, "hi")).isEqualTo("hi!");
    assertThat(call(DYNAMIC, "ho")).isEqualTo("ho!");

    assertThat(events)
        .containsExactly(
            "client interceptor test.Echo/Echo",
            "client log test.Echo/Echo",
            "server log test.Echo/Echo",
            "server interceptor test.Echo/Echo",
            "handler echo",
            "client interceptor test.Dynamic/Call",
            "client log test.Dynamic/Call",
            "wrap test.Dynamic/Call",
            "server log test.Dynamic/Call",
            "server interceptor test.Dynamic/Call",
            "handler dynamic");
  }

  @Test
  void withoutABinaryLogNothingIsWrapped() throws Exception {
    startServer(null);
    channel =
        InProcessChannelBuilder.forName(name)
            .directExecutor()
            .intercept(clientInterceptor("client interceptor"))
            .setBinaryLog(null)
            .build();

    assertThat(call(ECHO, "hi")).isEqualTo("hi!");

    assertThat(events)
        .containsExactly(
            "client interceptor test.Echo/Echo",
            "server interceptor test.Echo/Echo",
            "handler echo");
  }

  @Test
  void aLogThatRenamesAMethodIsRefusedWhenTheServerIsBuilt() {
    BinaryLog renaming =
        new RecordingBinaryLog() {
          @Override
          public ServerMethodDefinition<?, ?> wrapMethodDefinition(
              ServerMethodDefinition<?, ?> method) {
            return ServerMethodDefinition.create(DYNAMIC, echoHandler("dynamic"));
          }
        };
    ServerBuilder<?> builder =
        InProcessServerBuilder.forName(name)
            .addService(
                ServerServiceDefinition.builder("test.Echo")
                    .addMethod(ECHO, echoHandler("echo"))
                    .build())
            .setBinaryLog(renaming);

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("BinaryLog.wrapMethodDefinition changed the method test.Echo/Echo");
  }
}
