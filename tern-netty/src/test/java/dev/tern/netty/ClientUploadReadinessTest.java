package dev.tern.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.Server;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.testing.TernCleanupExtension;
import dev.tern.testing.TestMarshallers;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Uploads that the engine holds back for flow control become ready again: several client-streaming
 * calls on one connection, each sending only while {@link ClientCall#isReady()} and going on from
 * {@code onReady}. The server reads nothing until every upload has been held back (each sends twice
 * its stream's window), then reads them all. The client learns what the engine wrote from its
 * flushes (the streams still queued stay on its list between flushes); a stream dropped from that
 * list would never be ready again and its call would stall.
 */
class ClientUploadReadinessTest {
  private static final int CALLS = 8;
  private static final int MESSAGES = 64;
  private static final int MESSAGE_BYTES = 32 * 1024;

  private static final MethodDescriptor<byte[], byte[]> UPLOAD =
      MethodDescriptor.newBuilder(TestMarshallers.bytes(), TestMarshallers.bytes())
          .setFullMethodName("tern.test.Upload/Upload")
          .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
          .build();

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  /** The server's one callback thread: it alone calls the server calls' methods. */
  private final ExecutorService serverThread =
      cleanup.register(Executors.newSingleThreadExecutor());

  /** The server's uploads, as they arrive; touched on {@link #serverThread} only. */
  private final List<ServerCall<byte[], byte[]>> arrived = new ArrayList<>();

  private final CountDownLatch allArrived = new CountDownLatch(CALLS);

  /**
   * Answers each upload with the number of bytes it received, as a big-endian long; reads nothing
   * until {@link #readAll}.
   */
  private ServerServiceDefinition counting() {
    ServerCallHandler<byte[], byte[]> handler =
        (call, headers) -> {
          arrived.add(call);
          allArrived.countDown();
          return new ServerCall.Listener<>() {
            long received;

            @Override
            public void onMessage(byte[] message) {
              received += message.length;
              call.request(1);
            }

            @Override
            public void onHalfClose() {
              call.sendHeaders(new Metadata());
              call.sendMessage(ByteBuffer.allocate(Long.BYTES).putLong(received).array());
              call.close(Status.OK, new Metadata());
            }
          };
        };
    return ServerServiceDefinition.builder("tern.test.Upload").addMethod(UPLOAD, handler).build();
  }

  /** The server starts reading every upload, on its callback thread. */
  private void readAll() {
    serverThread.execute(() -> arrived.forEach(call -> call.request(1)));
  }

  @Test
  void concurrentUploadsHeldBackByFlowControl_allFinishWithEveryByte() throws Exception {
    Server server =
        cleanup.register(
            NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .executor(serverThread)
                .addService(counting())
                .build()
                .start());
    ManagedChannel channel =
        cleanup.register(
            ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build());

    List<Upload> uploads = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      uploads.add(
          new Upload(
              channel.newCall(
                  UPLOAD, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS))));
    }
    uploads.forEach(Upload::start);
    // Unread, each upload fills its stream's window (half of what it sends) and is held back.
    assertThat(allArrived.await(30, TimeUnit.SECONDS)).as("every upload arrived").isTrue();
    for (Upload upload : uploads) {
      assertThat(upload.firstHeldBack.await(30, TimeUnit.SECONDS)).as("held back").isTrue();
    }
    readAll();

    for (int i = 0; i < CALLS; i++) {
      assertThat(uploads.get(i).answer.get(30, TimeUnit.SECONDS))
          .as("bytes the server received on call %d", i)
          .isEqualTo((long) MESSAGES * MESSAGE_BYTES);
    }
    assertThat(uploads).allSatisfy(u -> assertThat(u.heldBack).as("held back").isPositive());
  }

  /** One call sending {@link #MESSAGES} messages, each only while the call is ready. */
  private static final class Upload extends ClientCall.Listener<byte[]> {
    final ClientCall<byte[], byte[]> call;
    final CompletableFuture<Long> answer = new CompletableFuture<>();
    private final byte[] message = new byte[MESSAGE_BYTES];
    private int sent; // guarded by this
    private boolean halfClosed; // guarded by this
    volatile int heldBack;
    final CountDownLatch firstHeldBack = new CountDownLatch(1);

    Upload(ClientCall<byte[], byte[]> call) {
      this.call = call;
    }

    void start() {
      call.start(this, new Metadata());
      call.request(1);
      sendWhileReady();
    }

    private synchronized void sendWhileReady() {
      while (sent < MESSAGES && call.isReady()) {
        call.sendMessage(message);
        sent++;
      }
      if (sent < MESSAGES) {
        heldBack++;
        firstHeldBack.countDown();
      } else if (!halfClosed) {
        halfClosed = true;
        call.halfClose();
      }
    }

    @Override
    public void onReady() {
      sendWhileReady();
    }

    @Override
    public void onMessage(byte[] value) {
      answer.complete(ByteBuffer.wrap(value).getLong());
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (!status.isOk()) {
        answer.completeExceptionally(status.asRuntimeException());
      }
      answer.complete(-1L);
    }
  }
}
