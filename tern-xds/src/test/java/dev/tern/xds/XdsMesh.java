package dev.tern.xds;

import dev.tern.ManagedChannel;
import dev.tern.ManagedChannelBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What an end-to-end xDS test stands on: a real control plane, Tern backends on the given hosts,
 * and grpc-java's bootstrap property naming the control plane for {@code node} (each test its own
 * node, so its own bootstrap and its own pooled XdsClient). {@link #close} stops all of it, and the
 * channels made by {@link #channel}, in reverse order; it stops only what started, so a test's
 * {@code @AfterEach} may call it after a {@link #start} that threw or skipped the test (the control
 * plane not installed) or never ran. Used by one test thread.
 */
final class XdsMesh {
  private static final String BOOTSTRAP_PROPERTY = "io.grpc.xds.bootstrapConfig";

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ControlPlaneProcess cp;
  private Backends backends;

  /**
   * Starts the control plane and backends on {@code hosts}; when that fails or skips, stops what
   * had started and rethrows.
   */
  void start(String node, String... hosts) throws Exception {
    try {
      cp = closeLater(ControlPlaneProcess.start());
      backends = closeLater(Backends.start(hosts));
      System.setProperty(BOOTSTRAP_PROPERTY, cp.bootstrapJson(node));
      closeables.add(() -> System.clearProperty(BOOTSTRAP_PROPERTY));
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Replaces the bootstrap channels made from now on read (several control planes, say). */
  void useBootstrap(String json) {
    System.setProperty(BOOTSTRAP_PROPERTY, json);
  }

  /** Closes {@code closeable} with the rest (before what was started earlier). */
  <T extends AutoCloseable> T closeLater(T closeable) {
    closeables.add(closeable);
    return closeable;
  }

  ControlPlaneProcess controlPlane() {
    return cp;
  }

  Backends backends() {
    return backends;
  }

  /** A channel to {@code xds:///svc}, shut down by {@link #close}. */
  ManagedChannel channel() {
    ManagedChannel channel = ManagedChannelBuilder.forTarget("xds:///svc").usePlaintext().build();
    closeables.add(() -> channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS));
    return channel;
  }

  void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    closeables.clear();
  }
}
