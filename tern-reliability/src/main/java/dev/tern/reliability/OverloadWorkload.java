package dev.tern.reliability;

import dev.tern.reliability.ChaosService.WorkCall;
import dev.tern.stub.BlockingExecutors;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * What an overload run's calls are ({@code bin/overload --workload}): the calls each load makes,
 * the calls in flight of the closed loops that measure capacity, and the report's header. The
 * methods and their costs are {@link ChaosService}'s.
 *
 * <p>Immutable, so thread-safe; a {@link Calls} is not.
 */
enum OverloadWorkload {
  /** Unary {@link WorkCall#STANDARD} calls, a fixed CPU cost (the default). */
  WORK,
  /**
   * Unary {@link WorkCall#CHEAP} calls and, one in {@link #EXPENSIVE_ONE_IN}, {@link
   * WorkCall#EXPENSIVE} ones: half the CPU goes to each kind.
   */
  MIXED,
  /**
   * Unary {@link WorkCall#BLOCKING} calls, whose handler blocks on a backend of {@link
   * ChaosService#BACKEND_CONNECTIONS} connections: on Tern's default blocking executor (virtual
   * threads on JDK 21 and later), on grpc-java's default executor.
   */
  BLOCKING,
  /** Server-streaming {@link WorkCall#STREAM} calls, each answer a tenth of a Work call's CPU. */
  STREAM;

  /** One call in this many of a {@link #MIXED} load is expensive (seeded, so repeatable). */
  static final int EXPENSIVE_ONE_IN = 10;

  /**
   * The calls in flight of {@link #BLOCKING}'s capacity loops. Its handlers hold a backend
   * connection for {@link ChaosService#BLOCK_TIME}, so the calls served a second are the calls in
   * progress divided by that, up to the backend's connections: 32 in flight serve up to 1,600
   * calls/s, 64 and 256 the backend's 3,200 (256 with a queue for the backend).
   */
  static final List<Integer> BLOCKING_CAPACITY_IN_FLIGHT = List.of(32, 64, 256);

  /** The value of {@code --workload}. */
  String flag() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The flag's values, for the usage error: "work, mixed, blocking or stream". */
  static String flags() {
    List<String> all = Arrays.stream(values()).map(OverloadWorkload::flag).toList();
    return String.join(", ", all.subList(0, all.size() - 1)) + " or " + all.get(all.size() - 1);
  }

  /**
   * The workload {@code flag} names.
   *
   * @throws IllegalArgumentException naming the flag and its values if it names none
   */
  static OverloadWorkload parse(String flag) {
    for (OverloadWorkload workload : values()) {
      if (workload.flag().equals(flag)) {
        return workload;
      }
    }
    throw new IllegalArgumentException("--workload must be " + flags() + ", was '" + flag + "'");
  }

  /**
   * The calls in flight of the closed loops that measure capacity, one after the other; the
   * capacity is the best of them (each at most the server's {@code maxConcurrentCalls}).
   */
  List<Integer> capacityInFlight() {
    return this == BLOCKING ? BLOCKING_CAPACITY_IN_FLIGHT : OverloadRun.CAPACITY_IN_FLIGHT;
  }

  /** The report's description of the calls. */
  String description() {
    return switch (this) {
      case WORK ->
          String.format(
              "Unary calls of %d xorshift rounds (a fixed CPU cost)", WorkCall.STANDARD.rounds());
      case MIXED ->
          String.format(
              "Unary calls, %d in %d of %d xorshift rounds (cheap) and 1 in %d of %d (expensive),"
                  + " half the CPU each",
              EXPENSIVE_ONE_IN - 1,
              EXPENSIVE_ONE_IN,
              WorkCall.CHEAP.rounds(),
              EXPENSIVE_ONE_IN,
              WorkCall.EXPENSIVE.rounds());
      case BLOCKING ->
          String.format(
              "Unary calls whose handler holds one of a backend's %d connections %d ms (Tern: its"
                  + " default blocking executor, %s; grpc-java: its default executor)",
              ChaosService.BACKEND_CONNECTIONS,
              ChaosService.BLOCK_TIME.toMillis(),
              BlockingExecutors.virtualThreadsAvailable()
                  ? "virtual threads"
                  : "a pool of " + BlockingExecutors.POOL_SIZE + " threads on this JDK");
      case STREAM ->
          String.format(
              "Server-streaming calls of %d answers of %d xorshift rounds each (latency to the"
                  + " stream's end)",
              ChaosService.WORK_STREAM_MESSAGES, WorkCall.STREAM.rounds());
    };
  }

  /** The calls of one load, in order; {@code seed} makes a {@link #MIXED} one repeatable. */
  Calls calls(long seed) {
    return new Calls(this, new SplittableRandom(seed));
  }

  /**
   * The calls of one load, in order. Not thread-safe: the thread that issues the calls draws them.
   */
  static final class Calls {
    private final OverloadWorkload workload;
    private final SplittableRandom random;

    private Calls(OverloadWorkload workload, SplittableRandom random) {
      this.workload = workload;
      this.random = random;
    }

    /** The next call to make. */
    WorkCall next() {
      return switch (workload) {
        case WORK -> WorkCall.STANDARD;
        case MIXED -> random.nextInt(EXPENSIVE_ONE_IN) == 0 ? WorkCall.EXPENSIVE : WorkCall.CHEAP;
        case BLOCKING -> WorkCall.BLOCKING;
        case STREAM -> WorkCall.STREAM;
      };
    }
  }

  /** The workloads' flags, separated by "|" (for the flag's help). */
  static String flagList() {
    return Arrays.stream(values()).map(OverloadWorkload::flag).collect(Collectors.joining("|"));
  }
}
