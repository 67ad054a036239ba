package dev.tern.internal.channel;

import static dev.tern.internal.channel.ClientTestSupport.BIDI;
import static dev.tern.internal.channel.ClientTestSupport.CUSTOM;
import static dev.tern.internal.channel.ClientTestSupport.headers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tern.Attributes;
import dev.tern.CallCredentials;
import dev.tern.CallOptions;
import dev.tern.ClientCall;
import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.SecurityLevel;
import dev.tern.Status;
import dev.tern.internal.channel.ClientTestSupport.ChannelFixture;
import dev.tern.internal.channel.ClientTestSupport.RecordingListener;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientCallCredentialsTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ChannelFixture fixture = new ChannelFixture();
  private FakeClientTransport transport;

  @AfterEach
  void shutDownChannel() {
    if (fixture.channel != null) {
      fixture.channel.shutdownNow();
    }
  }

  private void readyChannel() {
    fixture.build();
    fixture.channel.getState(true);
    transport = fixture.readyTransport();
  }

  /** Credentials that keep what they were given, answering only when the test says. */
  private static final class HeldCredentials extends CallCredentials {
    volatile RequestInfo info;
    volatile Executor appExecutor;
    volatile MetadataApplier applier;
    volatile RuntimeException toThrow;
    volatile String applyAtOnce;

    @Override
    public void applyRequestMetadata(
        RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
      this.info = requestInfo;
      this.appExecutor = appExecutor;
      this.applier = applier;
      if (toThrow != null) {
        throw toThrow;
      }
      if (applyAtOnce != null) {
        applier.apply(token(applyAtOnce));
      }
    }
  }

  private static Metadata token(String value) {
    Metadata extra = new Metadata();
    extra.put(AUTHORIZATION, "Bearer " + value);
    return extra;
  }

  private ClientCall<String, String> newCall(CallOptions options) {
    return fixture.channel.newCall(BIDI, options);
  }

  @Test
  void synchronousCredentialsAddTheirHeadersBeforeTheStreamStarts() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    credentials.applyAtOnce = "t0k3n";
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT.withCallCredentials(credentials));

    Metadata callHeaders = headers("mine");
    call.start(new RecordingListener(), callHeaders);

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.get(AUTHORIZATION)).isEqualTo("Bearer t0k3n");
    assertThat(stream.headers.get(CUSTOM)).isEqualTo("mine");
    assertThat(stream.ops()).containsExactly("start");
    assertThat(callHeaders.containsKey(AUTHORIZATION)).isFalse(); // merged into a copy
  }

  @Test
  void requestInfoDescribesTheCallAndItsTransport() {
    readyChannel();
    Attributes attrs =
        Attributes.newBuilder()
            .set(Grpc.TRANSPORT_ATTR_SECURITY_LEVEL, SecurityLevel.PRIVACY_AND_INTEGRITY)
            .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, ClientTestSupport.ADDRESS)
            .build();
    transport.setAttributes(attrs);
    HeldCredentials credentials = new HeldCredentials();
    CallOptions options =
        CallOptions.DEFAULT.withCallCredentials(credentials).withAuthority("other.example");

    newCall(options).start(new RecordingListener(), new Metadata());

    CallCredentials.RequestInfo info = credentials.info;
    assertThat(info.getMethodDescriptor()).isSameAs(BIDI);
    assertThat(info.getCallOptions()).isSameAs(options);
    assertThat(info.getAuthority()).isEqualTo("other.example");
    assertThat(info.getSecurityLevel()).isEqualTo(SecurityLevel.PRIVACY_AND_INTEGRITY);
    assertThat(info.getTransportAttrs()).isEqualTo(attrs);
  }

  @Test
  void securityLevelIsNoneWhenTheTransportDoesNotSay() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();

    newCall(CallOptions.DEFAULT.withCallCredentials(credentials))
        .start(new RecordingListener(), new Metadata());

    assertThat(credentials.info.getSecurityLevel()).isEqualTo(SecurityLevel.NONE);
    assertThat(credentials.info.getAuthority()).isEqualTo("test.example:443");
  }

  @Test
  void messagesSentBeforeAsynchronousCredentialsAnswerAreBufferedInOrder() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT.withCallCredentials(credentials));
    RecordingListener listener = new RecordingListener();
    call.start(listener, new Metadata());
    call.request(1);
    call.sendMessage("a");
    call.sendMessage("b");
    call.halfClose();
    assertThat(transport.streamCount()).isZero();

    Thread answer = new Thread(() -> credentials.applier.apply(token("late")));
    answer.start();
    join(answer);

    FakeClientStream stream = transport.lastStream();
    assertThat(stream.headers.get(AUTHORIZATION)).isEqualTo("Bearer late");
    assertThat(stream.ops())
        .containsExactly(
            "start", "request 1", "message a", "flush", "message b", "flush", "halfClose");
    stream.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("close OK");
  }

  @Test
  void credentialsThatFailCloseTheCallWithTheirStatus() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    RecordingListener listener = new RecordingListener();
    newCall(CallOptions.DEFAULT.withCallCredentials(credentials)).start(listener, new Metadata());

    credentials.applier.fail(Status.UNAUTHENTICATED.withDescription("no token"));

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(listener.status.getDescription()).isEqualTo("no token");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void credentialsThatThrowFailTheCallWithUnauthenticated() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    credentials.toThrow = new IllegalStateException("plugin bug");
    RecordingListener listener = new RecordingListener();

    newCall(CallOptions.DEFAULT.withCallCredentials(credentials)).start(listener, new Metadata());

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(listener.status.getDescription()).isEqualTo("Credentials plugin threw");
    assertThat(listener.status.getCause()).hasMessage("plugin bug");
  }

  @Test
  void applierRejectsASecondAnswerAndAnOkFailure() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    newCall(CallOptions.DEFAULT.withCallCredentials(credentials))
        .start(new RecordingListener(), new Metadata());

    assertThatThrownBy(() -> credentials.applier.fail(Status.OK))
        .isInstanceOf(IllegalArgumentException.class);
    credentials.applier.apply(token("once"));
    assertThatThrownBy(() -> credentials.applier.apply(token("twice")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already called");
    assertThat(transport.streamCount()).isEqualTo(1);
  }

  @Test
  void deadlineStillFiresWhileWaitingForCredentials() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    CallOptions options =
        CallOptions.DEFAULT
            .withCallCredentials(credentials)
            .withDeadline(fixture.deadlineAfter(1, TimeUnit.SECONDS));
    RecordingListener listener = new RecordingListener();
    newCall(options).start(listener, new Metadata());

    fixture.clock.forwardTime(1, TimeUnit.SECONDS);

    assertThat(listener.status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    credentials.applier.apply(token("too late"));
    assertThat(transport.streamCount()).isZero();
    assertThat(listener.closeCount()).isEqualTo(1);
  }

  @Test
  void cancelWhileWaitingForCredentialsClosesTheCall() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    ClientCall<String, String> call = newCall(CallOptions.DEFAULT.withCallCredentials(credentials));
    RecordingListener listener = new RecordingListener();
    call.start(listener, new Metadata());

    call.cancel("bye", null);
    credentials.applier.fail(Status.UNAUTHENTICATED);

    assertThat(listener.events()).containsExactly("close CANCELLED");
    assertThat(transport.streamCount()).isZero();
  }

  @Test
  void credentialsGetTheCallExecutorForBlockingWork() {
    fixture.directExecutor = false;
    FakeClientExecutor channelExecutor = new FakeClientExecutor();
    fixture.executor = channelExecutor;
    readyChannel();
    HeldCredentials onChannel = new HeldCredentials();
    HeldCredentials onCall = new HeldCredentials();
    FakeClientExecutor callExecutor = new FakeClientExecutor();

    newCall(CallOptions.DEFAULT.withCallCredentials(onChannel))
        .start(new RecordingListener(), new Metadata());
    newCall(CallOptions.DEFAULT.withCallCredentials(onCall).withExecutor(callExecutor))
        .start(new RecordingListener(), new Metadata());

    assertThat(onChannel.appExecutor).isSameAs(channelExecutor);
    assertThat(onCall.appExecutor).isSameAs(callExecutor);
  }

  @Test
  void queuedCallGetsCredentialsOnceTheTransportIsReady() {
    fixture.build();
    HeldCredentials credentials = new HeldCredentials();
    credentials.applyAtOnce = "queued";
    RecordingListener listener = new RecordingListener();
    newCall(CallOptions.DEFAULT.withCallCredentials(credentials)).start(listener, new Metadata());
    assertThat(credentials.info).isNull();

    FakeClientTransport ready = fixture.readyTransport();

    assertThat(ready.lastStream().headers.get(AUTHORIZATION)).isEqualTo("Bearer queued");
  }

  @Test
  void transportThatGoesAwayWhileCredentialsAreFetchedIsReplacedTransparently() {
    readyChannel();
    HeldCredentials credentials = new HeldCredentials();
    RecordingListener listener = new RecordingListener();
    newCall(CallOptions.DEFAULT.withCallCredentials(credentials))
        .start(listener, headers("patient"));
    MetadataApplierHolder first = new MetadataApplierHolder(credentials.applier);

    transport.goAway(Status.UNAVAILABLE.withDescription("GOAWAY"));
    first.applier.apply(token("one")); // the stream is refused: DROPPED, retried on a new transport
    assertThat(listener.isClosed()).isFalse();
    FakeClientTransport second = fixture.readyTransport();
    credentials.applier.apply(token("two"));

    FakeClientStream stream = second.lastStream();
    assertThat(stream.headers.get(CUSTOM)).isEqualTo("patient");
    assertThat(stream.headers.getAll(AUTHORIZATION)).containsExactly("Bearer two");
    stream.serverClose(Status.OK);
    assertThat(listener.events()).containsExactly("close OK");
  }

  private static final class MetadataApplierHolder {
    final CallCredentials.MetadataApplier applier;

    MetadataApplierHolder(CallCredentials.MetadataApplier applier) {
      this.applier = applier;
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
