/**
 * Tern's built-in name resolvers, found by the channel through {@code ServiceLoader} and
 * tern-core's {@code module-info}. Not API; may change at any time.
 *
 * <ul>
 *   <li>{@code dns}: {@link dev.tern.internal.resolver.DnsNameResolverProvider} and {@code
 *       JdkDnsNameResolver}, the JDK's resolver; {@link
 *       dev.tern.internal.resolver.AbstractDnsNameResolver} is what every DNS resolver shares (one
 *       lookup at a time, rate-limited refresh, service configs from TXT records, the channel's
 *       {@link dev.tern.ProxyDetector} asked before each lookup), which tern-netty's resolver that
 *       asks a named DNS server extends.
 *   <li>TXT records (gRFC A2, off unless turned on): {@link
 *       dev.tern.internal.resolver.JndiTxtLookup} (JNDI's DNS provider, optional), {@link
 *       dev.tern.internal.resolver.TxtRecords}, {@code GrpcConfigTxt} (the record's choices through
 *       {@code dev.tern.internal.config}).
 *   <li>{@code ipv4} and {@code ipv6}: {@link
 *       dev.tern.internal.resolver.AddressListNameResolverProvider}, address literals, nothing
 *       looked up.
 *   <li>{@link dev.tern.internal.resolver.HostAndPort}: target parsing the schemes share.
 * </ul>
 *
 * <p>Threads: a resolver's state lives in its channel's {@link dev.tern.SynchronizationContext};
 * lookups block on the channel's offload executor and their results hop back into the context. A
 * DNS target whose host is an IP address ({@code dev.tern.internal.AddressLiterals}) is answered in
 * the context, without a lookup. Providers and the TXT helpers are stateless and thread-safe.
 *
 * <p>Uses the API and {@code dev.tern.internal.config}; exported to tern-netty only.
 */
package dev.tern.internal.resolver;
