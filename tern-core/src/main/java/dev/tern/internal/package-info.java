/**
 * Not API: implementation details that may change at any time.
 *
 * <p>Classes here are public only so that Tern's own modules (transports, protobuf support) can
 * share them. Applications must not depend on them.
 */
package dev.tern.internal;
