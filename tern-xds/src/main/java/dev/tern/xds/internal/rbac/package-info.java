/**
 * The RBAC engine of xDS servers (gRFC A41). Not API.
 *
 * <pre>
 * envoy.config.rbac.v3.RBAC --RbacParser--&gt; RbacEngine (action + policies of compiled RbacMatchers:
 *                                           HeaderMatch, StringMatch, PeerNames, ...), or an
 *                                           RbacException naming the field A41 leaves out
 * a call --RbacRequest (path, headers, authority, addresses, TLS session)--&gt; engine: allow or deny
 * </pre>
 *
 * <p>Threads: the parser runs when a Listener or RouteConfiguration arrives (the xDS client's
 * synchronization context); an engine and its matchers are immutable and thread-safe, and decide
 * each call on the thread that starts it, parsing nothing per call.
 *
 * <p>The RBAC HTTP filter ({@code dev.tern.xds.internal.filter}) builds on it; it imports only the
 * API and the Envoy protos, no other package of tern-xds ({@code tools/java/package-rules.txt}).
 */
package dev.tern.xds.internal.rbac;
