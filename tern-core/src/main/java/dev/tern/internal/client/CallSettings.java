package dev.tern.internal.client;

import dev.tern.CompressorRegistry;
import dev.tern.Deadline;
import dev.tern.DecompressorRegistry;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The channel's settings that each of its calls needs, made once per channel. Immutable;
 * thread-safe (given thread-safe components).
 *
 * @param executor the channel's application executor (a direct one with {@code directExecutor})
 * @param directExecutor whether the channel runs callbacks inline on the transport's thread
 * @param scheduler runs the calls' deadline timers
 * @param ticker the time source of deadlines from method configs
 * @param maxInboundMessageSize the largest response message of a call whose options set none
 * @param compressorRegistry where {@code CallOptions.withCompression} names are looked up
 * @param decompressorRegistry what responses may be compressed with (and is advertised)
 * @param requestsCrossThreads whether a stream's {@code request} hands over to another thread (then
 *     calls whose server streams read ahead; see {@link dev.tern.internal.ReadAhead})
 */
public record CallSettings(
    Executor executor,
    boolean directExecutor,
    ScheduledExecutorService scheduler,
    Deadline.Ticker ticker,
    int maxInboundMessageSize,
    CompressorRegistry compressorRegistry,
    DecompressorRegistry decompressorRegistry,
    boolean requestsCrossThreads) {

  public CallSettings {
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(compressorRegistry, "compressorRegistry");
    Objects.requireNonNull(decompressorRegistry, "decompressorRegistry");
  }
}
