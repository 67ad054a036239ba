package dev.tern.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.MethodDescriptor;
import dev.tern.MethodDescriptor.MethodType;
import dev.tern.ServerServiceDefinition;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.stub.ServerCalls;
import dev.tern.stub.StreamObserver;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** BlockHound, through {@link BlockingDetector}, catches a non-blocking method that sleeps. */
class BlockingDetectorTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final MethodDescriptor<String, String> SLEEP = method("Sleep");
  private static final MethodDescriptor<String, String> SWALLOW = method("Swallow");
  private static final MethodDescriptor<String, String> ON_EXECUTOR = method("OnExecutor");

  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private ManagedChannel channel;

  private static MethodDescriptor<String, String> method(String name) {
    return MethodDescriptor.newBuilder(TestMarshallers.utf8(), TestMarshallers.utf8())
        .setType(MethodType.UNARY)
        .setFullMethodName("test.Sleepy/" + name)
        .build();
  }

  @BeforeAll
  static void installDetector() {
    assumeTrue(
        BlockingDetector.isAvailable(),
        "BlockHound cannot instrument this JVM: it needs -XX:+AllowRedefinitionToAddDeleteMethods"
            + " (tern.blockhound.argLine in the parent POM)");
    BlockingDetector.install();
  }

  @BeforeEach
  void start() throws Exception {
    BlockingDetector.clearViolations();
    String name = InProcessServerBuilder.generateName();
    cleanup.register(
        InProcessServerBuilder.forName(name)
            .executor(executor)
            .addService(
                ServerServiceDefinition.builder("test.Sleepy")
                    .addMethod(SLEEP, ServerCalls.asyncUnaryCall(BlockingDetectorTest::sleep))
                    .addMethod(SWALLOW, ServerCalls.asyncUnaryCall(BlockingDetectorTest::swallow))
                    .addMethod(ON_EXECUTOR, ServerCalls.asyncUnaryCall(BlockingDetectorTest::sleep))
                    .build())
            .nonBlocking(SLEEP.getFullMethodName())
            .nonBlocking(SWALLOW.getFullMethodName())
            .build()
            .start());
    channel = cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  @AfterEach
  void stopExecutor() {
    executor.shutdownNow();
  }

  private static void sleep(String request, StreamObserver<String> responses) {
    try {
      Thread.sleep(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    responses.onNext("slept");
    responses.onCompleted();
  }

  private static void swallow(String request, StreamObserver<String> responses) {
    try {
      sleep(request, responses);
    } catch (IllegalStateException e) {
      responses.onNext("swallowed");
      responses.onCompleted();
    }
  }

  private String call(MethodDescriptor<String, String> method) {
    return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, "");
  }

  @Test
  void sleepInANonBlockingMethodFailsTheCallNamingTheMethod() throws Exception {
    StatusRuntimeException failure;
    try (LogCapture log =
        new LogCapture("dev.tern.internal.server.ServerCallStreamListener", Level.WARNING)) {
      failure = catchThrowableOfType(StatusRuntimeException.class, () -> call(SLEEP));
      assertThat(log.records())
          .singleElement()
          .satisfies(
              record ->
                  assertThat(record.getThrown())
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessageContaining("Blocking call java.lang.Thread.sleep")
                      .hasMessageContaining("from non-blocking method test.Sleepy/Sleep"));
    }
    assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
    assertThat(BlockingDetector.violations()).hasSize(1);
  }

  @Test
  void violationIsRecordedEvenWhenTheMethodSwallowsIt() {
    assertThat(call(SWALLOW)).isEqualTo("swallowed");

    assertThat(BlockingDetector.violations())
        .singleElement()
        .asString()
        .contains("from non-blocking method test.Sleepy/Swallow");
  }

  @Test
  void otherMethodsAndThreadsMayBlock() throws Exception {
    assertThat(call(ON_EXECUTOR)).isEqualTo("slept");
    Thread.sleep(1);

    assertThat(BlockingDetector.violations()).isEmpty();
  }
}
