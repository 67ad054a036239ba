package dev.tern.examples.nameresolve;

import dev.tern.EquivalentAddressGroup;
import dev.tern.NameResolver;
import dev.tern.Status;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Resolves {@code example:///SERVICE} from a fixed table of service names and server addresses,
 * where a real resolver would ask a registry (Consul, ZooKeeper, a config file). It answers once,
 * at start: a table that changed would call the listener again. Thread-safe.
 */
final class ExampleNameResolver extends NameResolver {
  private final String service;
  private final Map<String, List<InetSocketAddress>> table;

  ExampleNameResolver(String service, Map<String, List<InetSocketAddress>> table) {
    this.service = service;
    this.table = table;
  }

  @Override
  public String getServiceAuthority() {
    return service;
  }

  @Override
  public void start(Listener listener) {
    List<InetSocketAddress> servers = table.get(service);
    if (servers == null || servers.isEmpty()) {
      listener.onError(
          Status.UNAVAILABLE.withDescription("no servers known for service '" + service + "'"));
      return;
    }
    // One EquivalentAddressGroup per server: the load balancer treats each as one backend.
    List<EquivalentAddressGroup> groups = new ArrayList<>();
    for (InetSocketAddress server : servers) {
      groups.add(new EquivalentAddressGroup(server));
    }
    listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
  }

  @Override
  public void shutdown() {}
}
