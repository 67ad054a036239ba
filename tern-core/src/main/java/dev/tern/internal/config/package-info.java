/**
 * Service configs (the gRPC service-config doc, gRFC A6 retries and hedging, gRFC A2 DNS TXT
 * choices) and Tern's one JSON parser. Not API; may change at any time.
 *
 * <pre>
 * JSON text --JsonParser--&gt; Map/List/Double/String/Boolean
 *   --ServiceConfigParser (typed reads: ConfigValues)--&gt; ServiceConfig
 *        method configs (MethodConfig: RetryPolicy | HedgingPolicy), RetryThrottlingPolicy,
 *        the load-balancing policy, the health-check service
 * a _grpc_config TXT record --ServiceConfigChoices--&gt; the chosen config's JSON
 * </pre>
 *
 * <p>The rooms: {@link dev.tern.internal.config.JsonParser} (strict RFC 8259), {@link
 * dev.tern.internal.config.ServiceConfigParser} (checks a config and names the offending field in
 * its {@code IllegalArgumentException}), the immutable model ({@link
 * dev.tern.internal.config.ServiceConfig} and its records), {@link
 * dev.tern.internal.config.ServiceConfigChoices} (gRFC A2's choice among a TXT record's configs).
 *
 * <p>Threads: the model is immutable, the parsers and helpers stateless, all thread-safe (a {@code
 * JsonParser} instance parses one document on one thread). Parsing runs where it is asked for: the
 * builder's thread for a default config, a resolver's thread (the DNS resolver's offload executor)
 * for resolved ones.
 *
 * <p>Used by the channel, the call and retry layers and the DNS resolver of tern-core; exported
 * (see tern-core's {@code module-info}) to tern-netty, and for {@code JsonParser} to tern-authz
 * (policy files), tern-xds (the bootstrap file) and the test tools. Imports only the API.
 */
package dev.tern.internal.config;
