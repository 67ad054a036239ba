package dev.tern.xds.internal.lb;

import dev.tern.Attributes;
import dev.tern.EquivalentAddressGroup;
import dev.tern.LoadBalancer;
import dev.tern.NameResolver;
import dev.tern.NameResolverProvider;
import dev.tern.NameResolverRegistry;
import dev.tern.Status;
import dev.tern.SynchronizationContext;
import dev.tern.xds.internal.XdsAttributes;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A LOGICAL_DNS discovery mechanism (gRFC A37): resolves {@code host:port} with the channel's
 * {@code dns} name resolver (from {@link NameResolverRegistry}) and makes of every address it
 * returns one endpoint, in one locality of priority 0. The resolver's blocking lookups run on a
 * daemon thread of this watch's own, stopped with it. Results are moved into the channel's
 * synchronization context, where all state lives.
 */
final class DnsWatch implements DiscoveryMechanismWatch {
  static final String LOCALITY = "logical-dns";

  private final String hostPort;
  private final SynchronizationContext syncContext;
  private final Runnable onChange;
  private final ExecutorService offload;
  private final NameResolver resolver;
  private Resolution resolution;
  private boolean shutdown;

  DnsWatch(
      String hostPort,
      NameResolverRegistry registry,
      LoadBalancer.Helper helper,
      Runnable onChange) {
    this.hostPort = hostPort;
    this.syncContext = helper.getSynchronizationContext();
    this.onChange = onChange;
    List<NameResolverProvider> providers = registry.providersFor("dns");
    if (providers.isEmpty()) {
      offload = null;
      resolver = null;
      resolution = failed("no dns name resolver is registered");
      return;
    }
    offload =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "tern-xds-logical-dns " + hostPort);
              thread.setDaemon(true);
              return thread;
            });
    NameResolver.Args args =
        NameResolver.Args.newBuilder()
            .setDefaultPort(443)
            .setSynchronizationContext(syncContext)
            .setScheduledExecutorService(helper.getScheduledExecutorService())
            .setOffloadExecutor(offload)
            .build();
    resolver = providers.get(0).newNameResolver(URI.create("dns:///" + hostPort), args);
    resolver.start(new Listener());
  }

  @Override
  public Resolution resolution() {
    return resolution;
  }

  @Override
  public void refresh() {
    if (resolver != null) {
      resolver.refresh();
    }
  }

  @Override
  public void shutdown() {
    shutdown = true;
    if (resolver != null) {
      resolver.shutdown();
      offload.shutdownNow();
    }
  }

  private Resolution failed(String why) {
    return Resolution.failed(
        Status.UNAVAILABLE.withDescription("LOGICAL_DNS " + hostPort + ": " + why));
  }

  private void set(Resolution next) {
    if (!shutdown) {
      resolution = next;
      onChange.run();
    }
  }

  /** The DNS name of {@code host:port}, or null for an IPv6 literal ({@code [::1]:80}). */
  static String hostname(String hostPort) {
    if (hostPort.startsWith("[")) {
      return null;
    }
    int colon = hostPort.lastIndexOf(':');
    return colon < 0 ? hostPort : hostPort.substring(0, colon);
  }

  private final class Listener extends NameResolver.Listener {
    @Override
    public void onResult(NameResolver.ResolutionResult result) {
      List<SocketAddress> addresses = new ArrayList<>();
      for (EquivalentAddressGroup group : result.getAddresses()) {
        addresses.addAll(group.getAddresses());
      }
      syncContext.execute(
          () -> {
            if (addresses.isEmpty()) {
              set(failed("resolved to no addresses"));
              return;
            }
            Attributes.Builder attributes =
                Attributes.newBuilder()
                    .set(AddressPath.LOCALITY, LOCALITY)
                    .set(AddressPath.ENDPOINT_WEIGHT, 1);
            String hostname = hostname(hostPort);
            if (hostname != null) {
              attributes.set(XdsAttributes.ENDPOINT_HOSTNAME, hostname);
            }
            EquivalentAddressGroup endpoint =
                new EquivalentAddressGroup(addresses, attributes.build());
            set(
                Resolution.of(
                    List.of(List.of(new Resolution.Locality(LOCALITY, 1, List.of(endpoint)))),
                    List.of()));
          });
    }

    @Override
    public void onError(Status error) {
      syncContext.execute(
          () -> {
            if (resolution == null || resolution.error() != null) {
              set(failed(error.getDescription()));
            }
          });
    }
  }
}
