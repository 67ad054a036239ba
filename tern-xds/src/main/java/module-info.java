/**
 * xDS for Tern (started, issue 35): the bootstrap, the ADS client ({@code XdsClient}) and the
 * validated model of listeners, routes, clusters and endpoints, in {@code dev.tern.xds}. The
 * classes generated from the xDS and Envoy API protos ({@code io.envoyproxy.*}, {@code
 * com.github.xds.*}, {@code udpa.*}, {@code xds.*}, {@code envoy.*}) are the module's own wire
 * format and are not exported. Uses tern-core's API, and of its runtime only the JSON parser
 * (exported to it).
 */
module dev.tern.xds {
  requires transitive dev.tern.core;
  // The ADS method's marshaller; google.rpc.Status (a NACK's error_detail) comes through it from
  // proto-google-common-protos. Automatic modules: the pom turns off the lint about requiring them.
  requires dev.tern.protobuf;
  requires proto.google.common.protos;
  // XdsResourceType names protobuf's Message in its signature.
  requires transitive com.google.protobuf;
  requires java.logging;
  // CSDS joins the admin set through tern-services' AdminServiceProvider.
  requires dev.tern.services;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern.xds;
  // xDS-enabled servers (A36): XdsServerBuilder; their machinery is in
  // dev.tern.xds.internal.server.
  exports dev.tern.xds.server;
  exports dev.tern.xds.client;
  // ORCA for servers (A51): per-call metrics in the trailer and the OOB OpenRcaService.
  exports dev.tern.xds.orca;

  provides dev.tern.services.AdminServiceProvider with
      dev.tern.xds.internal.admin.CsdsAdminServiceProvider;
  provides dev.tern.NameResolverProvider with
      dev.tern.xds.internal.resolver.XdsNameResolverProvider;
  // The xDS balancer tree (dev.tern.xds.internal.lb, not exported): the cluster manager and below.
  provides dev.tern.LoadBalancerProvider with
      dev.tern.xds.internal.lb.ClusterManagerLoadBalancerProvider,
      dev.tern.xds.internal.lb.CdsProvider,
      dev.tern.xds.internal.lb.ClusterResolverProvider,
      dev.tern.xds.internal.lb.PriorityProvider,
      dev.tern.xds.internal.lb.WeightedTargetProvider,
      dev.tern.xds.internal.lb.ClusterImplProvider,
      dev.tern.xds.internal.lb.OutlierDetectionProvider,
      dev.tern.xds.internal.lb.RingHashProvider,
      dev.tern.xds.internal.lb.WeightedRoundRobinProvider;
}
