/**
 * Protobuf support: marshallers for generated messages, proto metadata keys, and rich errors
 * ({@code StatusProto}) on the standard {@code com.google.rpc} messages. Uses tern-core's API only:
 * no package of Tern's runtime is exported to it.
 */
module dev.tern.protobuf {
  requires transitive dev.tern.core;
  // The marshallers' and StatusProto's signatures name protobuf's messages and com.google.rpc's
  // Status. Both are automatic modules: protobuf-java names itself in its manifest;
  // proto-google-common-protos has no module name of its own, so its name is the one Java derives
  // from the jar Maven resolves (proto-google-common-protos-VERSION.jar), the same for every
  // version. The pom turns off the lint that warns about requiring automatic modules.
  requires transitive com.google.protobuf;
  requires transitive proto.google.common.protos;
  // @GuardedBy, checked by Error Prone at build time; CLASS retention, not needed at run time.
  requires static com.google.errorprone.annotations;

  exports dev.tern.protobuf;
}
