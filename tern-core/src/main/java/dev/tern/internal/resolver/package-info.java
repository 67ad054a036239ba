/**
 * Tern's built-in name resolvers: {@code dns} (the JDK's resolver; tern-netty adds one that asks a
 * named DNS server), {@code ipv4} and {@code ipv6} address lists, and the shared parsing and
 * rate-limited re-resolution they use.
 */
package dev.tern.internal.resolver;
