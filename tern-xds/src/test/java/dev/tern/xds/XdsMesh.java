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
 * channels made by {@link #channel}, in reverse order. Used by one test thread.
 */
final class XdsMesh {
  private static final String BOOTSTRAP_PROPERTY = "io.grpc.xds.bootstrapConfig";

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private ControlPlaneProcess cp;
  private Backends backends;

  private XdsMesh() {}

  static XdsMesh start(String node, String... hosts) throws Exception {
    XdsMesh mesh = new XdsMesh();
    try {
      mesh.cp = ControlPlaneProcess.start();
      mesh.closeables.add(mesh.cp);
      mesh.backends = Backends.start(hosts);
      mesh.closeables.add(mesh.backends);
      System.setProperty(BOOTSTRAP_PROPERTY, mesh.cp.bootstrapJson(node));
      mesh.closeables.add(() -> System.clearProperty(BOOTSTRAP_PROPERTY));
      return mesh;
    } catch (Exception | Error e) {
      mesh.close();
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
