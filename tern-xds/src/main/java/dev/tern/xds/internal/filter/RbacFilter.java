package dev.tern.xds.internal.filter;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import dev.tern.Status;
import dev.tern.xds.internal.rbac.RbacEngine;
import dev.tern.xds.internal.rbac.RbacException;
import dev.tern.xds.internal.rbac.RbacParser;
import dev.tern.xds.internal.rbac.RbacRequest;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBAC;
import io.envoyproxy.envoy.extensions.filters.http.rbac.v3.RBACPerRoute;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code envoy.extensions.filters.http.rbac.v3.RBAC} (A41), on servers only: refuses calls by the
 * policies of its {@code rules} (no {@code rules}, or action LOG: it refuses nothing), overridden
 * per route by an {@code RBACPerRoute} (without {@code rbac}: it refuses nothing there). A refused
 * call fails PERMISSION_DENIED; which policy decided is logged at FINE, never told to the client.
 * {@code shadow_rules} and the stat prefixes are ignored; a {@code matcher} tree is NACKed.
 */
final class RbacFilter implements ServerFilter {
  static final String TYPE_URL = "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC";
  static final String OVERRIDE_TYPE_URL =
      "type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute";
  private static final Logger logger = Logger.getLogger(RbacFilter.class.getName());

  /** The config of a filter that enforces a policy, or ({@code engine} null) one that does not. */
  record RbacConfig(String typeUrl, RbacEngine engine) implements FilterConfig {}

  @Override
  public Set<String> typeUrls() {
    return Set.of(TYPE_URL, OVERRIDE_TYPE_URL);
  }

  @Override
  public FilterConfig parse(Any config) throws FilterConfigException {
    if (!config.getTypeUrl().equals(TYPE_URL)) {
      throw new FilterConfigException(
          "an RBACPerRoute is a per-route override, not a filter's config");
    }
    RBAC rbac;
    try {
      rbac = RBAC.parseFrom(config.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new FilterConfigException("RBAC cannot be decoded: " + e.getMessage());
    }
    return parse(rbac, TYPE_URL, "");
  }

  @Override
  public FilterConfig parseOverride(Any config) throws FilterConfigException {
    if (!config.getTypeUrl().equals(OVERRIDE_TYPE_URL)) {
      throw new FilterConfigException(
          "the RBAC filter's per-route override must be an RBACPerRoute, not "
              + config.getTypeUrl());
    }
    RBACPerRoute perRoute;
    try {
      perRoute = RBACPerRoute.parseFrom(config.getValue());
    } catch (InvalidProtocolBufferException e) {
      throw new FilterConfigException("RBACPerRoute cannot be decoded: " + e.getMessage());
    }
    if (!perRoute.hasRbac()) {
      return new RbacConfig(OVERRIDE_TYPE_URL, null);
    }
    return parse(perRoute.getRbac(), OVERRIDE_TYPE_URL, "rbac.");
  }

  private static RbacConfig parse(RBAC rbac, String typeUrl, String prefix)
      throws FilterConfigException {
    if (rbac.hasMatcher()) {
      throw new FilterConfigException(prefix + "matcher: not supported (only rules)");
    }
    if (!rbac.hasRules()) {
      return new RbacConfig(typeUrl, null);
    }
    try {
      return new RbacConfig(typeUrl, RbacParser.parse(rbac.getRules(), prefix + "rules"));
    } catch (RbacException e) {
      throw new FilterConfigException(e.getMessage());
    }
  }

  @Override
  public ServerInterceptor serverInterceptor(FilterConfig config, FilterConfig override) {
    FilterConfig effective = override instanceof RbacConfig ? override : config;
    if (!(effective instanceof RbacConfig rbac) || rbac.engine() == null) {
      return null;
    }
    return new Enforcer(rbac.engine());
  }

  /** Enforces one engine on each call. Immutable; thread-safe. */
  private record Enforcer(RbacEngine engine) implements ServerInterceptor {
    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      RbacRequest request = RbacRequest.of(call, headers);
      String policy = engine.matchingPolicy(request);
      if ((policy != null) == engine.isAllow()) {
        return next.startCall(call, headers);
      }
      if (logger.isLoggable(Level.FINE)) {
        logger.fine(
            "RBAC refused "
                + request.path()
                + " from "
                + request.remote()
                + (policy != null
                    ? ": DENY policy \"" + policy + "\" matched"
                    : ": no ALLOW policy matched"));
      }
      call.close(Status.PERMISSION_DENIED.withDescription("RBAC: access denied"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
  }
}
