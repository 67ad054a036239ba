package dev.tern.authz;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Enforces the gRFC A43 authorization policy held in a file, and follows the file as it changes:
 * every {@code period} the file is read again, and if its content differs from the last read, the
 * new policy replaces the old one for calls that start afterwards. Calls are checked exactly as by
 * {@link AuthorizationPolicyInterceptor}.
 *
 * <p>The first read happens in {@link #create}: a missing, unreadable or invalid file is an error
 * there, so a server does not start without its policy. Later, a file that cannot be read or holds
 * an invalid policy changes nothing: the last valid policy stays in force and one WARNING says why
 * (once per distinct problem, not every period). Each policy taken into use is logged at INFO.
 * Replace the file atomically (write a new file, then rename it over the old one) so a reload never
 * sees half a policy; a half-written file is at worst refused and retried.
 *
 * <pre>{@code
 * try (FileAuthorizationPolicyInterceptor authz =
 *     FileAuthorizationPolicyInterceptor.create(policyFile, 1, TimeUnit.MINUTES, scheduler)) {
 *   Server server = serverBuilder.intercept(authz).build().start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread-safe. Calls read the current policy from a volatile field; reloads run on the given
 * executor, one at a time (a fixed-delay task never overlaps itself), and only they touch the
 * record of what the file last held.
 */
public final class FileAuthorizationPolicyInterceptor implements ServerInterceptor, Closeable {
  private static final Logger logger =
      Logger.getLogger(FileAuthorizationPolicyInterceptor.class.getName());

  private final File file;
  private volatile CompiledPolicy policy;

  /** The file's content at the last read (valid or not), so an unchanged file is not re-parsed. */
  private String lastContent;

  /** The last reload problem logged, so that a lasting problem is logged once. */
  private String lastProblem;

  private ScheduledFuture<?> refreshes;

  private FileAuthorizationPolicyInterceptor(File file, String content, CompiledPolicy policy) {
    this.file = file;
    this.lastContent = content;
    this.policy = policy;
  }

  /**
   * Reads the policy in {@code policyFile} and schedules a check of the file every {@code period}
   * on {@code executor}, until {@link #close}.
   *
   * @param executor runs the reloads; it stays the caller's to shut down
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if the file does not hold a valid policy (the message names
   *     the field), or {@code period} is not positive
   */
  public static FileAuthorizationPolicyInterceptor create(
      File policyFile, long period, TimeUnit unit, ScheduledExecutorService executor)
      throws IOException {
    Objects.requireNonNull(policyFile, "policyFile");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(executor, "executor");
    if (period <= 0) {
      throw new IllegalArgumentException("period must be positive, was " + period);
    }
    String content = read(policyFile);
    CompiledPolicy policy;
    try {
      policy = PolicyReader.read(content);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(policyFile + ": " + e.getMessage(), e);
    }
    FileAuthorizationPolicyInterceptor interceptor =
        new FileAuthorizationPolicyInterceptor(policyFile, content, policy);
    logger.log(
        Level.INFO,
        "Authorization policy ''{0}'' loaded from {1}",
        new Object[] {policy.name(), policyFile});
    synchronized (interceptor) {
      interceptor.refreshes =
          executor.scheduleWithFixedDelay(interceptor::refresh, period, period, unit);
    }
    return interceptor;
  }

  /** The {@code name} of the policy in force. */
  public String policyName() {
    return policy.name();
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    return policy.interceptCall(call, headers, next);
  }

  /**
   * Stops following the file; the last policy stays in force for calls. Does not shut the executor
   * down. Idempotent.
   */
  @Override
  public synchronized void close() {
    refreshes.cancel(false);
  }

  /** One scheduled check. Never throws: an exception would silently end the schedule. */
  private void refresh() {
    String content;
    try {
      content = read(file);
    } catch (IOException | RuntimeException e) {
      warnOnce("cannot read " + file + " (" + e + ")");
      return;
    }
    if (content.equals(lastContent)) {
      lastProblem = null;
      return;
    }
    lastContent = content;
    CompiledPolicy next;
    try {
      next = PolicyReader.read(content);
    } catch (RuntimeException e) {
      warnOnce(file + " holds an invalid policy: " + e.getMessage());
      return;
    }
    policy = next;
    lastProblem = null;
    logger.log(
        Level.INFO,
        "Authorization policy ''{0}'' loaded from {1}",
        new Object[] {next.name(), file});
  }

  private void warnOnce(String problem) {
    if (!problem.equals(lastProblem)) {
      lastProblem = problem;
      logger.log(
          Level.WARNING,
          "Keeping authorization policy ''{0}'': {1}",
          new Object[] {policy.name(), problem});
    }
  }

  private static String read(File file) throws IOException {
    return new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "FileAuthorizationPolicyInterceptor{file=" + file + ", policy=" + policy.name() + "}";
  }
}
