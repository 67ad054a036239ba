package dev.tern.compiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.NonBlocking;
import dev.tern.Server;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.protobuf.ProtoMethodDescriptorSupplier;
import dev.tern.protobuf.ProtoServiceDescriptorSupplier;
import dev.tern.stub.StreamObserver;
import dev.tern.test.simple.GreeterTern;
import dev.tern.test.simple.HelloRequest;
import dev.tern.test.streaming.Item;
import dev.tern.test.streaming.StreamerTern;
import dev.tern.test.streaming.Summary;
import dev.tern.testing.TernCleanupExtension;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Serves the generated {@code StreamerTern} (compiled from the golden file) over the in-process
 * transport and calls all four method types through the generated stubs.
 */
class GeneratedServiceEndToEndTest {
  private static final long TIMEOUT_SECONDS = 10;

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** Echoes in upper case, repeats, summarizes and echoes streams. */
  private static class StreamerService extends StreamerTern.StreamerImplBase {
    @Override
    public void unary(Item request, StreamObserver<Item> responseObserver) {
      responseObserver.onNext(item(request.getText().toUpperCase(java.util.Locale.ROOT)));
      responseObserver.onCompleted();
    }

    @Override
    public void serverStream(Item request, StreamObserver<Item> responseObserver) {
      for (int i = 0; i < request.getCount(); i++) {
        responseObserver.onNext(item(request.getText() + "-" + i));
      }
      responseObserver.onCompleted();
    }

    @Override
    public StreamObserver<Item> clientStream(StreamObserver<Summary> responseObserver) {
      Summary.Builder summary = Summary.newBuilder();
      return new StreamObserver<>() {
        @Override
        public void onNext(Item value) {
          summary.addTexts(value.getText());
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          responseObserver.onNext(summary.build());
          responseObserver.onCompleted();
        }
      };
    }

    @Override
    public StreamObserver<Item> bidi(StreamObserver<Item> responseObserver) {
      return new StreamObserver<>() {
        @Override
        public void onNext(Item value) {
          responseObserver.onNext(item("echo " + value.getText()));
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          responseObserver.onCompleted();
        }
      };
    }
  }

  /** Records the thread of each call; its server-streaming method alone never blocks. */
  private static final class NonBlockingServerStream extends StreamerService {
    final Map<String, String> threads = new ConcurrentHashMap<>();

    @Override
    public void unary(Item request, StreamObserver<Item> responseObserver) {
      threads.put("unary", Thread.currentThread().getName());
      super.unary(request, responseObserver);
    }

    @NonBlocking
    @Override
    public void serverStream(Item request, StreamObserver<Item> responseObserver) {
      threads.put("serverStream", Thread.currentThread().getName());
      super.serverStream(request, responseObserver);
    }
  }

  private ManagedChannel serve(dev.tern.BindableService service) throws Exception {
    String name = cleanup.uniqueName();
    Server server =
        cleanup.register(InProcessServerBuilder.forName(name).addService(service).build());
    server.start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  @Test
  void nonBlockingOnAnOverriddenGeneratedMethodRunsItAloneOnTheTransportThread() throws Exception {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(task -> new Thread(task, "app-executor"));
    try {
      NonBlockingServerStream service = new NonBlockingServerStream();
      String name = cleanup.uniqueName();
      cleanup
          .register(
              InProcessServerBuilder.forName(name).executor(executor).addService(service).build())
          .start();
      StreamerTern.StreamerBlockingStub blocking =
          StreamerTern.newBlockingStub(
                  cleanup.register(InProcessChannelBuilder.forName(name).build()))
              .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);

      assertThat(blocking.unary(item("a")).getText()).isEqualTo("A");
      assertThat(blocking.serverStream(item("n").toBuilder().setCount(1).build()).next().getText())
          .isEqualTo("n-0");

      // In-process, the transport's thread is the one that sent the request: this test's.
      assertThat(service.threads)
          .containsEntry("unary", "app-executor")
          .containsEntry("serverStream", Thread.currentThread().getName());
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void allFourCallTypesWorkThroughTheGeneratedStubs() throws Exception {
    ManagedChannel channel = serve(new StreamerService());
    StreamerTern.StreamerBlockingStub blocking =
        StreamerTern.newBlockingStub(channel).withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    assertThat(blocking.unary(item("hello")).getText()).isEqualTo("HELLO");

    Iterator<Item> stream = blocking.serverStream(item("n").toBuilder().setCount(3).build());
    List<String> streamed = new ArrayList<>();
    stream.forEachRemaining(i -> streamed.add(i.getText()));
    assertThat(streamed).containsExactly("n-0", "n-1", "n-2");

    CompletableFuture<Item> future = StreamerTern.newFutureStub(channel).unary(item("future"));
    assertThat(future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getText()).isEqualTo("FUTURE");

    StreamerTern.StreamerStub async = StreamerTern.newStub(channel);
    RecordingObserver<Summary> summary = new RecordingObserver<>();
    StreamObserver<Item> requests = async.clientStream(summary);
    requests.onNext(item("a"));
    requests.onNext(item("b"));
    requests.onNext(item("c"));
    requests.onCompleted();
    assertThat(summary.await())
        .singleElement()
        .satisfies(s -> assertThat(s.getTextsList()).containsExactly("a", "b", "c"));

    RecordingObserver<Item> echoes = new RecordingObserver<>();
    StreamObserver<Item> bidi = async.bidi(echoes);
    bidi.onNext(item("x"));
    bidi.onNext(item("y"));
    bidi.onCompleted();
    assertThat(echoes.await()).extracting(Item::getText).containsExactly("echo x", "echo y");

    RecordingObserver<Item> unary = new RecordingObserver<>();
    async.unary(item("async"), unary);
    assertThat(unary.await()).extracting(Item::getText).containsExactly("ASYNC");
  }

  @Test
  void methodsNotOverriddenAnswerUnimplemented() throws Exception {
    ManagedChannel channel = serve(new GreeterTern.GreeterImplBase() {});
    GreeterTern.GreeterBlockingStub stub =
        GreeterTern.newBlockingStub(channel).withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    assertThatThrownBy(() -> stub.sayHello(HelloRequest.newBuilder().setName("x").build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
              assertThat(e.getStatus().getDescription())
                  .contains("tern.test.simple.Greeter/SayHello");
            });
  }

  @Test
  @SuppressWarnings("deprecation") // the awkward service is deprecated on purpose
  void mangledMethodNamesRouteToTheProtoMethods() throws Exception {
    ManagedChannel channel =
        serve(
            new request.awkward.AwkwardTern.AwkwardImplBase() {
              @Override
              public void toString_(
                  request.awkward.Awkward request,
                  StreamObserver<request.awkward.Awkward> responseObserver) {
                responseObserver.onNext(request.toBuilder().setRequest("toString called").build());
                responseObserver.onCompleted();
              }
            });
    request.awkward.AwkwardTern.AwkwardBlockingStub stub =
        request.awkward.AwkwardTern.newBlockingStub(channel)
            .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);

    assertThat(stub.toString_(request.awkward.Awkward.getDefaultInstance()).getRequest())
        .isEqualTo("toString called");
    assertThat(request.awkward.AwkwardTern.getToStringMethod().getFullMethodName())
        .isEqualTo("awkward.Awkward/toString");
    assertThatThrownBy(() -> stub.getClass_(request.awkward.Awkward.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  @Test
  void descriptorsCarryTheProtoSchemaAndMethodOptions() {
    Object schema = StreamerTern.getServiceDescriptor().getSchemaDescriptor();
    assertThat(schema).isInstanceOf(ProtoServiceDescriptorSupplier.class);
    assertThat(((ProtoServiceDescriptorSupplier) schema).getServiceDescriptor().getFullName())
        .isEqualTo("tern.test.streaming.Streamer");
    assertThat(StreamerTern.getServiceDescriptor().getMethods())
        .extracting(MethodDescriptor::getType)
        .containsExactly(
            MethodDescriptor.MethodType.UNARY,
            MethodDescriptor.MethodType.SERVER_STREAMING,
            MethodDescriptor.MethodType.CLIENT_STREAMING,
            MethodDescriptor.MethodType.BIDI_STREAMING);
    Object bidi = StreamerTern.getBidiMethod().getSchemaDescriptor();
    assertThat(((ProtoMethodDescriptorSupplier) bidi).getMethodDescriptor().isServerStreaming())
        .isTrue();

    assertThat(GreeterTern.getLookUpMethod().isSafe()).isTrue();
    assertThat(GreeterTern.getReplaceMethod().isIdempotent()).isTrue();
    assertThat(GreeterTern.getReplaceMethod().isSafe()).isFalse();
    assertThat(GreeterTern.getSayHelloMethod().isIdempotent()).isFalse();
  }

  private static Item item(String text) {
    return Item.newBuilder().setText(text).build();
  }

  /** Collects what a call reports; {@link #await} waits for its end. */
  private static final class RecordingObserver<T> implements StreamObserver<T> {
    private final List<T> values = java.util.Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<List<T>> done = new CompletableFuture<>();

    @Override
    public void onNext(T value) {
      values.add(value);
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(values);
    }

    List<T> await() throws Exception {
      return done.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }
}
