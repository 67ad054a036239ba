/**
 * gRFC A43 authorization: a JSON policy of deny and allow rules on the called method's path, the
 * request headers and the client certificate's identities, enforced by a server interceptor. See
 * docs/authorization.md for the policy language.
 *
 * <pre>
 * policy JSON --PolicyReader (strict: an unknown field is an error)--&gt; CompiledPolicy
 *   deny Rules, then allow Rules: each a source (principals, matched against PeerIdentity's names
 *   of the client certificate) and a request (paths and HeaderMatchers, by ValueMatcher patterns)
 * a call --AuthorizationPolicyInterceptor / FileAuthorizationPolicyInterceptor--&gt; decide:
 *   PERMISSION_DENIED before the handler runs, or on to the handler
 * </pre>
 *
 * <p>The rooms: the two public interceptors ({@link dev.tern.authz.AuthorizationPolicyInterceptor}
 * for a policy given once, {@link dev.tern.authz.FileAuthorizationPolicyInterceptor} for a file
 * re-read on a period), the reader, and the compiled policy with its matchers.
 *
 * <p>Threads: a compiled policy and its matchers are immutable and decide calls on the threads that
 * start them, parsing nothing. The file interceptor's reloads run on the scheduler the application
 * gives it, one at a time, and publish the new policy through a volatile field. Everything here is
 * thread-safe.
 *
 * <p>Uses tern-core's API, and its JSON parser ({@code dev.tern.internal.config}, exported to this
 * module) for policies; the RBAC engine of tern-xds (A41) is separate.
 */
package dev.tern.authz;
