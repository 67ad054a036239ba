package dev.tern.authz;

import dev.tern.Grpc;
import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.Status;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLSession;

/**
 * A policy ready to decide calls, compiled once when it is read: deny rules first (a match denies),
 * then allow rules (a match allows), and a call no rule allows is denied.
 *
 * <p>Immutable; thread-safe. Deciding a call parses nothing and allocates only when a header it
 * checks was sent several times or is binary (the joined or base64 value), plus the snapshot list
 * {@link Metadata#getAll} returns; a peer's certificate is read once per TLS session.
 */
final class CompiledPolicy {
  private static final Logger logger =
      Logger.getLogger(AuthorizationPolicyInterceptor.class.getName());

  /**
   * What a denied client sees. It does not say which rule or policy refused the call: that is for
   * the server's log (FINE), not for a caller probing the policy.
   */
  static final Status DENIED =
      Status.PERMISSION_DENIED.withDescription(
          "Access denied: the server's authorization policy does not permit this call");

  /** A listener for a call that was closed before it started: it ignores everything. */
  private static final ServerCall.Listener<Object> CLOSED_CALL = new ServerCall.Listener<>() {};

  private final String name;
  private final List<Rule> denyRules;
  private final List<Rule> allowRules;

  CompiledPolicy(String name, List<Rule> denyRules, List<Rule> allowRules) {
    this.name = name;
    this.denyRules = List.copyOf(denyRules);
    this.allowRules = List.copyOf(allowRules);
  }

  /** The policy's {@code name}. */
  String name() {
    return name;
  }

  /**
   * The rule that decides a call: the first matching deny rule, else the first matching allow rule,
   * else null (denied, as no rule allows it).
   *
   * @param fullMethodName the method's full name, without the path's leading slash
   * @param session the call's TLS session, or null if the peer did not use TLS
   */
  Rule decide(String fullMethodName, Metadata headers, SSLSession session) {
    for (int i = 0; i < denyRules.size(); i++) {
      Rule rule = denyRules.get(i);
      if (rule.matches(fullMethodName, headers, session)) {
        return rule;
      }
    }
    for (int i = 0; i < allowRules.size(); i++) {
      Rule rule = allowRules.get(i);
      if (rule.matches(fullMethodName, headers, session)) {
        return rule;
      }
    }
    return null;
  }

  /** Starts {@code call} if this policy allows it; otherwise closes it PERMISSION_DENIED. */
  <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    Rule rule = decide(method, headers, session);
    if (rule != null && !rule.isDeny()) {
      return next.startCall(call, headers);
    }
    if (logger.isLoggable(Level.FINE)) {
      logger.log(
          Level.FINE,
          "Denied /{0} from {1}: {2} of authorization policy ''{3}''",
          new Object[] {
            method,
            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
            rule != null ? rule : "no allow rule matched",
            name
          });
    }
    call.close(DENIED, new Metadata());
    @SuppressWarnings("unchecked") // the listener ignores its messages, whatever their type
    ServerCall.Listener<ReqT> closed = (ServerCall.Listener<ReqT>) CLOSED_CALL;
    return closed;
  }
}
