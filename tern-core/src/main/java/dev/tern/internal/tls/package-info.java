/**
 * TLS material for the credentials API: PEM certificate and key parsing with the JDK alone.
 * Exported only to Tern's transports.
 */
package dev.tern.internal.tls;
