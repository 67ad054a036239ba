package dev.tern;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.CallCredentials.MetadataApplier;
import dev.tern.CallCredentials.RequestInfo;
import dev.tern.MethodDescriptor.MethodType;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CallCredentialsTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private static final MethodDescriptor<String, Integer> METHOD =
      MethodDescriptor.newBuilder(MethodDescriptorTest.STRING, MethodDescriptorTest.INT)
          .setType(MethodType.UNARY)
          .setFullMethodName("pkg.Orders/Get")
          .build();

  private final ExecutorService appExecutor = Executors.newSingleThreadExecutor();

  @AfterEach
  void shutDown() {
    appExecutor.shutdownNow();
  }

  /**
   * Sends a bearer token for an audience derived from the call, fetching it on the app executor
   * because a token source may block; refuses insecure transports.
   */
  private static final class BearerTokenCredentials extends CallCredentials {
    private final Function<String, String> tokenForAudience;

    BearerTokenCredentials(Function<String, String> tokenForAudience) {
      this.tokenForAudience = tokenForAudience;
    }

    @Override
    public void applyRequestMetadata(
        RequestInfo info, Executor appExecutor, MetadataApplier applier) {
      if (info.getSecurityLevel() != SecurityLevel.PRIVACY_AND_INTEGRITY) {
        applier.fail(
            Status.UNAUTHENTICATED.withDescription(
                "refusing to send a token over a " + info.getSecurityLevel() + " transport"));
        return;
      }
      String audience =
          "https://" + info.getAuthority() + "/" + info.getMethodDescriptor().getServiceName();
      appExecutor.execute(
          () -> {
            String token;
            try {
              token = tokenForAudience.apply(audience);
            } catch (RuntimeException e) {
              applier.fail(Status.UNAVAILABLE.withDescription("token source failed").withCause(e));
              return;
            }
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, "Bearer " + token);
            applier.apply(headers);
          });
    }
  }

  /** The runtime's side: what it would pass to credentials for one call. */
  private static RequestInfo requestInfo(SecurityLevel level, Attributes transportAttrs) {
    return new RequestInfo() {
      @Override
      public MethodDescriptor<?, ?> getMethodDescriptor() {
        return METHOD;
      }

      @Override
      public CallOptions getCallOptions() {
        return CallOptions.DEFAULT;
      }

      @Override
      public SecurityLevel getSecurityLevel() {
        return level;
      }

      @Override
      public String getAuthority() {
        return "orders.example.com";
      }

      @Override
      public Attributes getTransportAttrs() {
        return transportAttrs;
      }
    };
  }

  /** Records the one outcome the credentials report, and on which thread. */
  private static final class RecordingApplier extends MetadataApplier {
    final CompletableFuture<Metadata> applied = new CompletableFuture<>();
    final CompletableFuture<Status> failed = new CompletableFuture<>();
    volatile Thread thread;

    @Override
    public void apply(Metadata headers) {
      thread = Thread.currentThread();
      applied.complete(headers);
    }

    @Override
    public void fail(Status status) {
      thread = Thread.currentThread();
      failed.complete(status);
    }
  }

  @Test
  void appliesHeadersAsynchronouslyOnTheAppExecutor() throws Exception {
    CallCredentials credentials = new BearerTokenCredentials(audience -> "token-for:" + audience);
    RecordingApplier applier = new RecordingApplier();
    RequestInfo info =
        requestInfo(
            SecurityLevel.PRIVACY_AND_INTEGRITY,
            Attributes.newBuilder()
                .set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, InetSocketAddress.createUnresolved("h", 443))
                .build());

    credentials.applyRequestMetadata(info, appExecutor, applier);

    Metadata headers = applier.applied.get(5, SECONDS);
    assertThat(headers.get(AUTHORIZATION))
        .isEqualTo("Bearer token-for:https://orders.example.com/pkg.Orders");
    assertThat(applier.thread).isNotSameAs(Thread.currentThread());
    assertThat(applier.failed).isNotDone();
  }

  @Test
  void refusesToSendSecretsOverAnInsecureTransport() throws Exception {
    CallCredentials credentials = new BearerTokenCredentials(audience -> "secret");
    RecordingApplier applier = new RecordingApplier();

    credentials.applyRequestMetadata(
        requestInfo(SecurityLevel.NONE, Attributes.EMPTY), appExecutor, applier);

    Status status = applier.failed.get(5, SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(status.getDescription()).contains("NONE");
    assertThat(applier.applied).isNotDone();
  }

  @Test
  void tokenSourceFailureFailsTheCallWithACause() throws Exception {
    IllegalStateException outage = new IllegalStateException("token server down");
    CallCredentials credentials =
        new BearerTokenCredentials(
            audience -> {
              throw outage;
            });
    RecordingApplier applier = new RecordingApplier();

    credentials.applyRequestMetadata(
        requestInfo(SecurityLevel.PRIVACY_AND_INTEGRITY, Attributes.EMPTY), appExecutor, applier);

    Status status = applier.failed.get(5, SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getCause()).isSameAs(outage);
  }

  @Test
  void credentialsTravelOnCallOptions() {
    CallCredentials credentials = new BearerTokenCredentials(audience -> "t");

    CallOptions options = CallOptions.DEFAULT.withCallCredentials(credentials);

    assertThat(options.getCredentials()).isSameAs(credentials);
    assertThat(options.withCallCredentials(null).getCredentials()).isNull();
  }
}
