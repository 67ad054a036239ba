/**
 * Tern's reliability harness, never published: network faults, overload, soak and rolling restarts,
 * Tern beside grpc-java ({@code dev.tern.reliability}, the only package; the programs of {@code
 * bin/chaos-report}, {@code bin/soak}, {@code bin/overload} and {@code bin/rolling-restart}). A
 * named module so that what it takes from Tern is checked against the library modules' exports: it
 * uses Tern's public API only.
 */
module dev.tern.reliability {
  requires transitive dev.tern.core;
  requires dev.tern.netty;
  requires dev.tern.services;
  requires transitive dev.tern.testtools;
  // grpc-java 1.79, the reference the harness runs beside Tern (automatic modules).
  requires transitive io.grpc;
  requires io.grpc.internal;
  requires io.grpc.netty.shaded;
  requires io.grpc.services;
  requires io.grpc.stub;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern.reliability;
}
