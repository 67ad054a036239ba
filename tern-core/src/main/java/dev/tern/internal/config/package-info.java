/**
 * Service configs (the gRPC service-config doc, gRFC A6 retries and hedging, gRFC A2 DNS TXT
 * choices): a strict JSON parser, the immutable model a channel reads, and the parser that checks a
 * config and names the offending field. Not API; may change at any time.
 */
package dev.tern.internal.config;
