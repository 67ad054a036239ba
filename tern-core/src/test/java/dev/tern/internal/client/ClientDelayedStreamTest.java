package dev.tern.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallOptions;
import dev.tern.Codec;
import dev.tern.DecompressorRegistry;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport;
import dev.tern.internal.channel.FakeClientStream;
import dev.tern.internal.channel.FakeClientTransport;
import dev.tern.internal.channel.ReadyOnStartClientStream;
import dev.tern.spi.ClientStreamListener;
import dev.tern.spi.ManagedClientTransport;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@link DelayedClientStream}: buffering, replay, and ending before a real stream exists. */
class ClientDelayedStreamTest {
  private final FakeClientTransport transport =
      new FakeClientTransport(InetSocketAddress.createUnresolved("h", 1), "h:1", "ua");
  private final List<String> events = new ArrayList<>();
  private final ClientStreamListener listener =
      new ClientStreamListener() {
        @Override
        public void headersRead(Metadata headers) {
          events.add("headers");
        }

        @Override
        public void closed(Status status, RpcProgress progress, Metadata trailers) {
          events.add("closed " + status.getCode() + " " + progress);
        }

        @Override
        public void messageRead(InputStream message) {
          events.add("message");
        }

        @Override
        public void onReady() {
          events.add("ready");
        }
      };

  private final ManagedClientTransport.Listener transportListener =
      ClientTestSupport.IGNORING_TRANSPORT_LISTENER;

  private FakeClientStream realStream() {
    if (!transport.isStarted()) {
      transport.start(transportListener);
    }
    return (FakeClientStream)
        transport.newStream(ClientTestSupport.BIDI, new Metadata(), CallOptions.DEFAULT);
  }

  /** A listener that runs {@code onReady} at each onReady and ignores everything else. */
  private static ClientStreamListener hearingOnlyReadiness(Runnable onReady) {
    return new ClientStreamListener() {
      @Override
      public void headersRead(Metadata headers) {}

      @Override
      public void closed(Status status, RpcProgress progress, Metadata trailers) {}

      @Override
      public void messageRead(InputStream message) {}

      @Override
      public void onReady() {
        onReady.run();
      }
    };
  }

  private static InputStream message(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void replaysEverythingInOrderThenPassesThrough() {
    DelayedClientStream delayed = new DelayedClientStream();
    delayed.setMaxInboundMessageSize(7);
    delayed.setMaxOutboundMessageSize(8);
    delayed.setDecompressorRegistry(DecompressorRegistry.emptyInstance());
    delayed.setCompressor(new Codec.Gzip());
    delayed.start(listener);
    delayed.request(1);
    delayed.writeMessage(message("a"));
    delayed.setMessageCompression(false);
    delayed.writeMessage(message("b"));
    delayed.flush();
    delayed.request(2);
    delayed.halfClose();
    assertThat(delayed.isReady()).isFalse();
    assertThat(delayed.getAttributes()).isEqualTo(Attributes.EMPTY);
    FakeClientStream real = realStream();

    assertThat(delayed.setStream(real)).isTrue();

    assertThat(real.ops())
        .containsExactly(
            "start",
            "request 3",
            "message a",
            "compression false",
            "message b",
            "flush",
            "halfClose");
    assertThat(real.maxInbound()).isEqualTo(7);
    assertThat(real.maxOutbound()).isEqualTo(8);
    assertThat(real.compressor()).isInstanceOf(Codec.Gzip.class);
    assertThat(delayed.isReady()).isTrue();
    delayed.request(5);
    assertThat(real.requested()).isEqualTo(8);
  }

  @Test
  void readinessSignalledWhileTheReplayIsUnderWayIsTrueWhenTheListenerAsks() {
    DelayedClientStream delayed = new DelayedClientStream();
    List<Boolean> readyWhenSignalled = new ArrayList<>();
    delayed.start(hearingOnlyReadiness(() -> readyWhenSignalled.add(delayed.isReady())));
    delayed.writeMessage(message("queued before the real stream"));

    // A real stream that says it is ready as soon as it starts, as a transport's may, from its own
    // thread, before the replay of the queued message has finished.
    assertThat(delayed.setStream(new ReadyOnStartClientStream())).isTrue();

    // The listener hears onReady once; if isReady() said false then, a caller waiting for
    // readiness (BlockingClientCall.write) would wait until the call's deadline.
    assertThat(readyWhenSignalled).containsExactly(true);
  }

  @Test
  void sendingWhileReadyDuringTheReplayQueuesNothingBehindIt() {
    DelayedClientStream delayed = new DelayedClientStream();
    List<Boolean> sentStraightThrough = new ArrayList<>();
    // An application that sends while the call is ready (ClientCall.isReady), as a
    // client-streaming upload does; a message the real stream takes is closed by it.
    delayed.start(
        hearingOnlyReadiness(
            () -> {
              while (delayed.isReady() && sentStraightThrough.size() < 10) {
                AtomicBoolean taken = new AtomicBoolean();
                delayed.writeMessage(
                    new ByteArrayInputStream(new byte[1]) {
                      @Override
                      public void close() {
                        taken.set(true);
                      }
                    });
                sentStraightThrough.add(taken.get());
              }
            }));
    delayed.writeMessage(message("queued before the real stream"));

    // The real stream says it is ready from inside start, before the queued message is replayed.
    assertThat(delayed.setStream(new ReadyOnStartClientStream())).isTrue();

    // Had isReady() said true during the replay, every message would have waited behind it, in a
    // queue no flow control limits; the sender would never have been held back.
    assertThat(sentStraightThrough).hasSize(10).containsOnly(true);
  }

  @Test
  void whatTheRealStreamReportsDuringTheReplayArrivesAfterItInOrder() {
    DelayedClientStream delayed = new DelayedClientStream();
    List<String> seen = new ArrayList<>();
    delayed.start(
        new ClientStreamListener() {
          @Override
          public void headersRead(Metadata headers) {
            seen.add("headers");
          }

          @Override
          public void closed(Status status, RpcProgress progress, Metadata trailers) {
            seen.add("closed " + status.getCode());
          }

          @Override
          public void messageRead(InputStream message) {
            seen.add("message");
          }

          @Override
          public void onReady() {
            seen.add("ready, isReady " + delayed.isReady());
          }
        });
    FakeClientStream real = realStream();
    List<String> seenDuringReplay = new ArrayList<>();
    // Replaying this message makes the real stream report, as its transport may meanwhile.
    delayed.writeMessage(
        new ByteArrayInputStream("m".getBytes(StandardCharsets.UTF_8)) {
          private boolean reported;

          @Override
          public synchronized byte[] readAllBytes() {
            if (!reported) {
              reported = true;
              real.deliverHeaders(new Metadata());
              real.setReady(true);
              real.deliverMessage("answer");
              seenDuringReplay.addAll(seen);
            }
            return super.readAllBytes();
          }
        });

    assertThat(delayed.setStream(real)).isTrue();

    assertThat(seenDuringReplay).isEmpty();
    assertThat(seen).containsExactly("headers", "ready, isReady true", "message");
    // From then on each callback goes straight through.
    real.deliverMessage("after the replay");
    real.serverClose(Status.OK);
    assertThat(seen).hasSize(5).endsWith("message", "closed OK");
  }

  @Test
  void realStreamSetBeforeStartIsStartedByStart() {
    DelayedClientStream delayed = new DelayedClientStream();
    FakeClientStream real = realStream();
    delayed.setStream(real);
    assertThat(real.isStarted()).isFalse();

    delayed.start(listener);
    delayed.writeMessage(message("x"));

    assertThat(real.ops()).containsExactly("start", "message x");
  }

  @Test
  void cancelWhileBufferedClosesTheListenerOnceAndReleasesMessages() {
    DelayedClientStream delayed = new DelayedClientStream();
    delayed.start(listener);
    AtomicBoolean released = new AtomicBoolean();
    delayed.writeMessage(
        new ByteArrayInputStream(new byte[1]) {
          @Override
          public void close() {
            released.set(true);
          }
        });

    delayed.cancel(Status.CANCELLED);
    delayed.cancel(Status.DEADLINE_EXCEEDED);

    assertThat(events).containsExactly("closed CANCELLED PROCESSED");
    assertThat(released).isTrue();
    FakeClientStream real = realStream();
    assertThat(delayed.setStream(real)).isFalse();
    assertThat(real.isStarted()).isFalse();
  }

  @Test
  void failBeforeStartIsReportedByStart() {
    DelayedClientStream delayed = DelayedClientStream.failed(Status.UNAVAILABLE);

    delayed.start(listener);

    assertThat(events).containsExactly("closed UNAVAILABLE PROCESSED");
    assertThat(delayed.isEnded()).isTrue();
  }

  @Test
  void failAfterTheRealStreamIsSetHasNoEffect() {
    DelayedClientStream delayed = new DelayedClientStream();
    delayed.start(listener);
    FakeClientStream real = realStream();
    delayed.setStream(real);

    assertThat(delayed.fail(Status.UNAVAILABLE)).isFalse();
    assertThat(events).isEmpty();
    delayed.cancel(Status.CANCELLED);
    assertThat(real.cancelStatus()).isEqualTo(Status.CANCELLED);
  }

  @Test
  void cancelAfterTheRealStreamIsSetButBeforeStartIsAppliedAfterStarting() {
    DelayedClientStream delayed = new DelayedClientStream();
    FakeClientStream real = realStream();
    delayed.setStream(real);

    delayed.cancel(Status.CANCELLED);
    delayed.start(listener);

    assertThat(real.ops()).containsExactly("start", "cancel CANCELLED");
    assertThat(events).containsExactly("closed CANCELLED PROCESSED");
  }

  @Test
  void misuseIsRejected() {
    DelayedClientStream delayed = new DelayedClientStream();
    delayed.start(listener);

    assertThatThrownBy(() -> delayed.setMaxInboundMessageSize(1))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> delayed.start(listener)).isInstanceOf(IllegalStateException.class);
    delayed.setStream(realStream());
    assertThatThrownBy(() -> delayed.setStream(realStream()))
        .isInstanceOf(IllegalStateException.class);
  }
}
