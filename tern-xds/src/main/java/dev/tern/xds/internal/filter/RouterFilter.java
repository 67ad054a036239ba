package dev.tern.xds.internal.filter;

import com.google.protobuf.Any;
import dev.tern.ClientInterceptor;
import dev.tern.ServerInterceptor;
import java.util.Set;

/**
 * {@code envoy.extensions.filters.http.router.v3.Router}: the last filter, on clients and servers;
 * the routing itself is the xds resolver's (on a server, the route check's). Its config's fields do
 * not apply to gRPC and are ignored.
 */
final class RouterFilter implements ClientFilter, ServerFilter {
  static final String TYPE_URL =
      "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";
  private static final FilterConfig CONFIG = () -> TYPE_URL;

  @Override
  public Set<String> typeUrls() {
    return Set.of(TYPE_URL);
  }

  @Override
  public boolean runsOnClients() {
    return true;
  }

  @Override
  public boolean runsOnServers() {
    return true;
  }

  @Override
  public boolean isTerminal() {
    return true;
  }

  @Override
  public FilterConfig parse(Any config) {
    return CONFIG;
  }

  @Override
  public FilterConfig parseOverride(Any config) throws FilterConfigException {
    throw new FilterConfigException("the router filter takes no per-route override");
  }

  @Override
  public ClientInterceptor interceptor(
      FilterConfig config, FilterConfig override, FilterContext context) {
    return null;
  }

  @Override
  public ServerInterceptor serverInterceptor(FilterConfig config, FilterConfig override) {
    return null;
  }
}
