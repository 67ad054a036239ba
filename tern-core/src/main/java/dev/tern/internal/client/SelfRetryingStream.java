package dev.tern.internal.client;

import dev.tern.spi.ClientStream;

/**
 * A stream that retries by itself (a retry or hedging policy's, which also does the transparent
 * retries): the call that gets one does not retry it.
 */
public interface SelfRetryingStream extends ClientStream {}
