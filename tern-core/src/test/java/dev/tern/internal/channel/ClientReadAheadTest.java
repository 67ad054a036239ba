package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Metadata;
import dev.tern.Status;
import dev.tern.internal.ReadAhead;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A streaming call on a channel whose transport hands requests to another thread reads responses
 * ahead (see {@link ReadAhead}); the application still sees each message only against its own
 * request, the close after every message, and a cancel at once. The fake stream plays the
 * transport, delivering only what was requested of it.
 */
class ClientReadAheadTest {
  private final ChannelFixture fixture = new ChannelFixture();
  private FakeClientTransport transport;

  @BeforeEach
  void readyChannel() {
    fixture.factory.setRequestsCrossThreads(true);
    fixture.directExecutor = false;
    fixture.executor = Runnable::run; // callbacks off the transport's side, but synchronous
    fixture.build();
    fixture.channel.getState(true);
    transport = fixture.readyTransport();
  }

  @AfterEach
  void shutDownChannel() {
    fixture.channel.shutdownNow();
  }

  private RecordingListener start(ClientCall<String, String> call) {
    RecordingListener listener = new RecordingListener();
    call.start(listener, new Metadata());
    return listener;
  }

  @Test
  void theStreamIsAskedForOneMessageAheadAndTheApplicationGetsOnlyWhatItAskedFor() {
    ClientCall<String, String> call = fixture.channel.newCall(BIDI, CallOptions.DEFAULT);
    RecordingListener listener = start(call);
    FakeClientStream stream = transport.lastStream();

    call.request(1);
    assertThat(stream.requested()).isEqualTo(1);
    stream.deliverMessage("a");
    assertThat(listener.events).containsExactly("message a");
    assertThat(stream.requested()).isEqualTo(2); // one ahead, asked on the transport's side
    stream.deliverMessage("b");

    assertThat(listener.events).containsExactly("message a");
    call.request(1);
    assertThat(listener.events).containsExactly("message a", "message b");
  }

  /** Starts a bidi call, requests one message and has the stream deliver "a" and "b". */
  private RecordingListener twoMessagesOneRequested(ClientCall<String, String> call) {
    RecordingListener listener = start(call);
    call.request(1);
    transport.lastStream().deliverMessage("a");
    transport.lastStream().deliverMessage("b");
    return listener;
  }

  @Test
  void theCloseWaitsBehindMessagesReadAhead() {
    ClientCall<String, String> call = fixture.channel.newCall(BIDI, CallOptions.DEFAULT);
    RecordingListener listener = twoMessagesOneRequested(call);
    FakeClientStream stream = transport.lastStream();

    stream.serverClose(Status.INTERNAL.withDescription("after two messages"));

    assertThat(listener.events).containsExactly("message a");
    call.request(1);
    assertThat(listener.events).containsExactly("message a", "message b", "close INTERNAL");
    assertThat(listener.status.getDescription()).isEqualTo("after two messages");
  }

  @Test
  void aCancelDropsMessagesReadAheadAndClosesAtOnce() {
    ClientCall<String, String> call = fixture.channel.newCall(BIDI, CallOptions.DEFAULT);
    RecordingListener listener = twoMessagesOneRequested(call);

    call.cancel("enough", null);

    assertThat(listener.events).containsExactly("message a", "close CANCELLED");
    assertThat(listener.status.getDescription()).isEqualTo("enough");
  }

  @Test
  void aUnaryCallDoesNotReadAhead() {
    ClientCall<String, String> call =
        fixture.channel.newCall(ClientTestSupport.UNARY, CallOptions.DEFAULT);
    start(call);

    call.request(2);

    assertThat(transport.lastStream().requested()).isEqualTo(2);
  }
}
