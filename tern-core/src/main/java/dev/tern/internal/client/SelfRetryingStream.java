package dev.tern.internal.client;

import dev.tern.spi.ClientStream;

/**
 * A stream that retries by itself (a retry or hedging policy's, which also does the transparent
 * retries): the call that gets one does not retry it, with one exception. Once committed to an
 * attempt whose request it no longer holds (the request outgrew the retry buffer), it reports that
 * attempt's end as it came, REFUSED or DROPPED included, and a call that sends one message, which
 * keeps it, then sends it again on a new stream.
 */
public interface SelfRetryingStream extends ClientStream {}
