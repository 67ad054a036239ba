package dev.tern.authz;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;
import java.util.Objects;

/**
 * Enforces a gRFC A43 authorization policy on a server's calls. Each call is checked before its
 * handler runs: the first matching deny rule refuses it, else the first matching allow rule lets it
 * through, else it is refused. A refused call ends {@code PERMISSION_DENIED} with a description
 * that names neither the policy nor the rule (the server logs those at FINE, under this class's
 * name), and its handler never sees it.
 *
 * <pre>{@code
 * Server server = NettyServerBuilder.forPort(8443)
 *     .sslContext(serverContextRequiringClientCertificates)
 *     .addService(service)
 *     .intercept(AuthorizationPolicyInterceptor.create(policyJson))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>Principals come from the client certificate of the call's TLS session, so a policy with
 * principal rules belongs on a server that uses TLS, usually with client certificates. See
 * docs/authorization.md for the policy language.
 *
 * <p>Immutable; thread-safe. The policy is compiled once, in {@link #create}.
 */
public final class AuthorizationPolicyInterceptor implements ServerInterceptor {
  private final CompiledPolicy policy;

  private AuthorizationPolicyInterceptor(CompiledPolicy policy) {
    this.policy = policy;
  }

  /**
   * An interceptor enforcing {@code policyJson}.
   *
   * @throws IllegalArgumentException if the policy is not valid; the message names the field, as in
   *     {@code "authorization policy: allow_rules[1].request.paths[0]: ..."}
   */
  public static AuthorizationPolicyInterceptor create(String policyJson) {
    Objects.requireNonNull(policyJson, "policyJson");
    return new AuthorizationPolicyInterceptor(PolicyReader.read(policyJson));
  }

  /** The policy's {@code name}. */
  public String policyName() {
    return policy.name();
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    return policy.interceptCall(call, headers, next);
  }

  @Override
  public String toString() {
    return "AuthorizationPolicyInterceptor{policy=" + policy.name() + "}";
  }
}
