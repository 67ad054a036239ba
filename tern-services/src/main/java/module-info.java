/**
 * The standard services: health (and client-side health checking), server reflection, channelz and
 * the admin bundle, binary logging, with their generated messages and stubs. Uses tern-core's API
 * only: no package of Tern's runtime or transport is exported to it.
 */
module dev.tern.services {
  requires transitive dev.tern.core;
  // The services' messages are protobuf messages; reflection serves descriptors. Automatic modules
  // (named in their manifests; see the pom for the lint this needs).
  requires transitive dev.tern.protobuf;
  requires transitive com.google.protobuf;
  requires java.logging;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern.services;
  exports dev.tern.services.binarylog;
  exports dev.tern.services.binarylog.v1;
  exports dev.tern.services.channelz;
  exports dev.tern.services.channelz.v1;
  exports dev.tern.services.health;
  exports dev.tern.services.health.v1;
  exports dev.tern.services.reflection;
  exports dev.tern.services.reflection.v1;
  exports dev.tern.services.reflection.v1alpha;

  // Client-side health checking wraps the load-balancing policy it finds by name.
  uses dev.tern.LoadBalancerProvider;
  // Services other modules add to the admin set (tern-xds: CSDS).
  uses dev.tern.services.AdminServiceProvider;

  provides dev.tern.LoadBalancerProvider with
      dev.tern.services.health.HealthCheckingLoadBalancerProvider;
}
