/**
 * gRFC A43 authorization: allow and deny rules as a server interceptor ({@code dev.tern.authz}).
 * Uses tern-core's API, and its JSON parser ({@code dev.tern.internal.config}, exported to this
 * module only) for policy files.
 */
module dev.tern.authz {
  requires transitive dev.tern.core;
  requires java.logging;

  exports dev.tern.authz;
}
