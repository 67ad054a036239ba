/**
 * gRFC A43 authorization: a JSON policy of deny and allow rules on the called method's path, the
 * request headers and the client certificate's identities, enforced by a server interceptor ({@link
 * dev.tern.authz.AuthorizationPolicyInterceptor}), or one that reloads the policy from a file
 * ({@link dev.tern.authz.FileAuthorizationPolicyInterceptor}). See docs/authorization.md.
 */
package dev.tern.authz;
