package dev.tern.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientInterceptors;
import dev.tern.ManagedChannel;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.ServerInterceptors;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.MetadataUtils;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The interceptor on a server, over the in-process transport. */
class AuthorizationPolicyInterceptorTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final String POLICY =
      "{\"name\": \"echo-policy\","
          + " \"deny_rules\": [{\"name\": \"no-streams\","
          + "   \"request\": {\"paths\": [\"*Streaming\"]}}],"
          + " \"allow_rules\": [{\"name\": \"role-echo\","
          + "   \"request\": {\"paths\": [\"/tern.testing.Echo/*\"],"
          + "                 \"headers\": [{\"key\": \"x-role\", \"values\": [\"echo\"]}]}}]}";

  /** Calls that reached the service's handler. */
  private final AtomicInteger handled = new AtomicInteger();

  private ManagedChannel start(ServerInterceptor authz) throws Exception {
    String name = cleanup.uniqueName();
    ServerInterceptor counting =
        new ServerInterceptor() {
          @Override
          public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
              ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
            handled.incrementAndGet();
            return next.startCall(call, headers);
          }
        };
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(ServerInterceptors.intercept(EchoService.definition(), counting))
                .intercept(authz)
                .build())
        .start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  private static Channel withRole(ManagedChannel channel, String role) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("x-role", Metadata.ASCII_STRING_MARSHALLER), role);
    return ClientInterceptors.intercept(
        channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  @Test
  void allowedCallReachesTheHandler() throws Exception {
    ManagedChannel channel = start(AuthorizationPolicyInterceptor.create(POLICY));
    String reply =
        ClientCalls.blockingUnaryCall(
            withRole(channel, "echo"), EchoService.UNARY, CallOptions.DEFAULT, "hello");
    assertThat(reply).isEqualTo("hello");
    assertThat(handled).hasValue(1);
  }

  @Test
  void deniedCallEndsPermissionDeniedBeforeTheHandlerRuns() throws Exception {
    ManagedChannel channel = start(AuthorizationPolicyInterceptor.create(POLICY));
    try (LogCapture log =
        new LogCapture(AuthorizationPolicyInterceptor.class.getName(), Level.FINE)) {
      StatusRuntimeException denied =
          catchThrowableOfType(
              StatusRuntimeException.class,
              () ->
                  ClientCalls.blockingUnaryCall(
                      withRole(channel, "guest"), EchoService.UNARY, CallOptions.DEFAULT, "hi"));
      Status status = denied.getStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      // The caller learns nothing about the policy.
      assertThat(status.getDescription())
          .isEqualTo("Access denied: the server's authorization policy does not permit this call")
          .doesNotContain("echo-policy")
          .doesNotContain("role-echo");
      assertThat(handled).hasValue(0);
      // The operator does: one FINE line naming the method and why.
      assertThat(log.records()).hasSize(1);
      LogRecord record = log.records().get(0);
      assertThat(record.getLevel()).isEqualTo(Level.FINE);
      assertThat(record.getThrown()).isNull();
      assertThat(new SimpleFormatter().formatMessage(record))
          .contains("/tern.testing.Echo/Unary")
          .contains("no allow rule matched")
          .contains("'echo-policy'");
    }
  }

  @Test
  void denyRuleWinsOverAnAllowRuleThatMatches() throws Exception {
    ManagedChannel channel = start(AuthorizationPolicyInterceptor.create(POLICY));
    try (LogCapture log =
        new LogCapture(AuthorizationPolicyInterceptor.class.getName(), Level.FINE)) {
      Iterator<String> replies =
          ClientCalls.blockingServerStreamingCall(
              withRole(channel, "echo"), EchoService.SERVER_STREAMING, CallOptions.DEFAULT, "2");
      StatusRuntimeException denied =
          catchThrowableOfType(StatusRuntimeException.class, replies::hasNext);
      assertThat(denied.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(handled).hasValue(0);
      assertThat(new SimpleFormatter().formatMessage(log.records().get(0)))
          .contains("deny rule 'no-streams'");
    }
  }
}
