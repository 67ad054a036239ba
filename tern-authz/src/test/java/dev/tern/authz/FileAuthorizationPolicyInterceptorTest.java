package dev.tern.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tern.CallOptions;
import dev.tern.ManagedChannel;
import dev.tern.Status;
import dev.tern.StatusRuntimeException;
import dev.tern.inprocess.InProcessChannelBuilder;
import dev.tern.inprocess.InProcessServerBuilder;
import dev.tern.stub.ClientCalls;
import dev.tern.testing.EchoService;
import dev.tern.testing.LogCapture;
import dev.tern.testing.TernCleanupExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A policy file followed as it changes. */
class FileAuthorizationPolicyInterceptorTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String LOGGER = FileAuthorizationPolicyInterceptor.class.getName();

  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  @TempDir Path dir;

  /**
   * What the interceptor logs (loads at INFO, problems at WARNING), kept out of the test output.
   */
  private LogCapture log;

  /** Counts the checks the interceptor ran, so a test can wait for more checks to pass. */
  private final CountingScheduler scheduler = new CountingScheduler();

  @BeforeEach
  void captureLog() {
    log = new LogCapture(LOGGER, null);
  }

  @AfterEach
  void stopCapturingLog() {
    log.close();
  }

  /** Allows only {@code method} of the echo service. */
  private static String allowing(String name, String method) {
    return "{\"name\": \""
        + name
        + "\", \"allow_rules\": [{\"name\": \"one\","
        + " \"request\": {\"paths\": [\"/tern.testing.Echo/"
        + method
        + "\"]}}]}";
  }

  /** Replaces the policy file atomically, as the documentation advises. */
  private File write(String content) throws IOException {
    Path next = Files.createTempFile(dir, "next", ".json");
    Files.writeString(next, content, StandardCharsets.UTF_8);
    Path file = dir.resolve("policy.json");
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return file.toFile();
  }

  private ManagedChannel serve(FileAuthorizationPolicyInterceptor authz) throws Exception {
    String name = cleanup.uniqueName();
    cleanup
        .register(
            InProcessServerBuilder.forName(name)
                .addService(EchoService.definition())
                .intercept(authz)
                .build())
        .start();
    return cleanup.register(InProcessChannelBuilder.forName(name).build());
  }

  private static Status.Code unary(ManagedChannel channel) {
    try {
      ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT, "hi");
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static String text(LogRecord record) {
    return new SimpleFormatter().formatMessage(record);
  }

  @Test
  void aChangedFileReplacesThePolicy() throws Exception {
    File file = write(allowing("v1", "Unary"));
    try (FileAuthorizationPolicyInterceptor authz =
        FileAuthorizationPolicyInterceptor.create(file, 10, TimeUnit.MILLISECONDS, scheduler)) {
      ManagedChannel channel = serve(authz);
      assertThat(authz.policyName()).isEqualTo("v1");
      assertThat(log.records()).hasSize(1);
      assertThat(log.records().get(0).getLevel()).isEqualTo(Level.INFO);
      assertThat(text(log.records().get(0)))
          .isEqualTo("Authorization policy 'v1' loaded from " + file);
      assertThat(unary(channel)).isEqualTo(Status.Code.OK);

      write(allowing("v2", "BidiStreaming"));
      LogRecord loaded = log.awaitRecord(r -> text(r).contains("'v2' loaded"), WAIT);
      assertThat(loaded.getLevel()).isEqualTo(Level.INFO);
      assertThat(authz.policyName()).isEqualTo("v2");
      assertThat(unary(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
    }
  }

  @Test
  void anInvalidFileKeepsTheOldPolicyAndWarnsOnce() throws Exception {
    File file = write(allowing("v1", "Unary"));
    try (FileAuthorizationPolicyInterceptor authz =
        FileAuthorizationPolicyInterceptor.create(file, 10, TimeUnit.MILLISECONDS, scheduler)) {
      ManagedChannel channel = serve(authz);

      write("{\"name\": \"v2\", \"allow_rules\": [{\"name\": \"r\", \"sources\": {}}]}");
      LogRecord warning = log.awaitRecord(r -> r.getLevel() == Level.WARNING, WAIT);
      assertThat(text(warning))
          .contains("Keeping authorization policy 'v1'")
          .contains("allow_rules[0].sources: unknown field");
      assertThat(warning.getThrown()).isNull();
      assertThat(authz.policyName()).isEqualTo("v1");
      assertThat(unary(channel)).isEqualTo(Status.Code.OK);

      // Later checks find the same bad file and say nothing more.
      scheduler.awaitMoreRuns(3);
      assertThat(log.records()).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(1);

      // A missing file is another problem: one more warning, still the old policy.
      Files.delete(file.toPath());
      LogRecord missing = log.awaitRecord(r -> text(r).contains("cannot read"), WAIT);
      assertThat(missing.getLevel()).isEqualTo(Level.WARNING);
      scheduler.awaitMoreRuns(3);
      assertThat(log.records()).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(2);
      assertThat(unary(channel)).isEqualTo(Status.Code.OK);

      // Fixed: the new policy is taken.
      write(allowing("v3", "BidiStreaming"));
      log.awaitRecord(r -> text(r).contains("'v3' loaded"), WAIT);
      assertThat(unary(channel)).isEqualTo(Status.Code.PERMISSION_DENIED);
    }
  }

  @Test
  void closeStopsFollowingTheFileAndKeepsThePolicy() throws Exception {
    File file = write(allowing("v1", "Unary"));
    FileAuthorizationPolicyInterceptor authz =
        FileAuthorizationPolicyInterceptor.create(file, 1, TimeUnit.HOURS, scheduler);
    assertThat(scheduler.getQueue()).hasSize(1);
    authz.close();
    authz.close();
    assertThat(scheduler.getQueue()).isEmpty();
    assertThat(unary(serve(authz))).isEqualTo(Status.Code.OK);
  }

  @Test
  void theFirstReadFailsCreate() throws Exception {
    File missing = dir.resolve("missing.json").toFile();
    assertThatThrownBy(
            () ->
                FileAuthorizationPolicyInterceptor.create(missing, 1, TimeUnit.MINUTES, scheduler))
        .isInstanceOf(NoSuchFileException.class);

    File invalid = write("{\"name\": \"p\"}");
    IllegalArgumentException e =
        catchThrowableOfType(
            IllegalArgumentException.class,
            () ->
                FileAuthorizationPolicyInterceptor.create(invalid, 1, TimeUnit.MINUTES, scheduler));
    assertThat(e).hasMessage(invalid + ": authorization policy: allow_rules: required");
    assertThat(scheduler.getQueue()).isEmpty();
  }

  @Test
  void aPeriodThatIsNotPositiveIsRefused() throws Exception {
    File file = write(allowing("v1", "Unary"));
    assertThatThrownBy(
            () -> FileAuthorizationPolicyInterceptor.create(file, 0, TimeUnit.SECONDS, scheduler))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("period must be positive, was 0");
  }

  /** A one-thread scheduler that counts finished task runs and lets a test wait for more. */
  private final class CountingScheduler extends ScheduledThreadPoolExecutor {
    private long runs;

    CountingScheduler() {
      super(1);
      setRemoveOnCancelPolicy(true);
      cleanup.register(this);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
      super.afterExecute(task, thrown);
      synchronized (this) {
        runs++;
        notifyAll();
      }
    }

    /** Waits until {@code more} runs have finished after this call. */
    synchronized void awaitMoreRuns(int more) throws InterruptedException {
      long target = runs + more;
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (runs < target) {
        long left = deadline - System.nanoTime();
        assertThat(left).as("waiting for %s more checks", more).isPositive();
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }
}
