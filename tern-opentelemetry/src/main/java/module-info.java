/**
 * OpenTelemetry metrics (gRFC A66) and tracing (gRFC A72) for Tern's channels and servers: {@code
 * dev.tern.opentelemetry.GrpcOpenTelemetry}. Uses tern-core's API only.
 */
module dev.tern.opentelemetry {
  requires transitive dev.tern.core;
  // The builder takes an OpenTelemetry instance, the grpc-trace-bin propagator is a
  // TextMapPropagator. Automatic modules, named in their manifests (see the pom for the lint this
  // needs).
  requires transitive io.opentelemetry.api;
  requires transitive io.opentelemetry.context;

  exports dev.tern.opentelemetry;
}
