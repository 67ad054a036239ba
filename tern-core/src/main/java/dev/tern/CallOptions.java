package dev.tern;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Per-call settings: deadline, authority override, credentials, compression, executor,
 * wait-for-ready, message size limits and custom options. Start from {@link #DEFAULT} and derive
 * with the {@code withX} methods; each returns a new instance, or {@code this} when nothing
 * changes. To set several at once, use {@link #newBuilder()} or {@link #toBuilder()}.
 *
 * <p>Immutable; thread-safe.
 */
public final class CallOptions {

  // Declared before DEFAULT, which is built from it.
  private static final Object[][] NO_CUSTOM_OPTIONS = new Object[0][];

  /** No deadline, no overrides, fail-fast, default limits, no custom options. */
  public static final CallOptions DEFAULT = new Builder().build();

  // All final, so instances are safe to share even through a data race.
  private final Deadline deadline;
  private final String authority;
  private final CallCredentials credentials;
  private final String compressorName;
  private final Executor executor;
  private final boolean waitForReady;
  private final Integer maxInboundMessageSize;
  private final Integer maxOutboundMessageSize;

  /** Pairs {key, value} in insertion order; copied on write, never mutated once published. */
  private final Object[][] customOptions;

  /** Unmodifiable, in the order added; empty (never null) when the call is not traced. */
  private final List<ClientStreamTracer.Factory> streamTracerFactories;

  private CallOptions(Builder builder) {
    this.deadline = builder.deadline;
    this.authority = builder.authority;
    this.credentials = builder.credentials;
    this.compressorName = builder.compressorName;
    this.executor = builder.executor;
    this.waitForReady = builder.waitForReady;
    this.maxInboundMessageSize = builder.maxInboundMessageSize;
    this.maxOutboundMessageSize = builder.maxOutboundMessageSize;
    this.customOptions = builder.customOptions;
    this.streamTracerFactories = builder.streamTracerFactories;
  }

  /** Returns a builder with every option at its default, as in {@link #DEFAULT}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** Returns a builder holding these options, to change several of them at once. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.deadline = deadline;
    builder.authority = authority;
    builder.credentials = credentials;
    builder.compressorName = compressorName;
    builder.executor = executor;
    builder.waitForReady = waitForReady;
    builder.maxInboundMessageSize = maxInboundMessageSize;
    builder.maxOutboundMessageSize = maxOutboundMessageSize;
    builder.customOptions = customOptions;
    builder.streamTracerFactories = streamTracerFactories;
    return builder;
  }

  /**
   * Returns options with the given deadline (null for none). The call fails with {@code
   * DEADLINE_EXCEEDED} once it passes; the effective deadline is the earlier of this and the one of
   * the current {@link Context}.
   */
  public CallOptions withDeadline(Deadline deadline) {
    if (Objects.equals(deadline, this.deadline)) {
      return this;
    }
    return toBuilder().setDeadline(deadline).build();
  }

  /** Returns options with a deadline {@code duration} from now. */
  public CallOptions withDeadlineAfter(long duration, TimeUnit unit) {
    return withDeadline(Deadline.after(duration, unit));
  }

  /** Returns the deadline, or null if none. */
  public Deadline getDeadline() {
    return deadline;
  }

  /**
   * Returns options overriding the {@code :authority} sent with the call (null to use the
   * channel's). Only set an authority the server's certificate covers.
   */
  public CallOptions withAuthority(String authority) {
    if (Objects.equals(authority, this.authority)) {
      return this;
    }
    return toBuilder().setAuthority(authority).build();
  }

  /** Returns the authority override, or null if none. */
  public String getAuthority() {
    return authority;
  }

  /** Returns options that apply {@code credentials} to the call (null for none). */
  public CallOptions withCallCredentials(CallCredentials credentials) {
    if (credentials == this.credentials) {
      return this;
    }
    return toBuilder().setCallCredentials(credentials).build();
  }

  /** Returns the call credentials, or null if none. */
  public CallCredentials getCredentials() {
    return credentials;
  }

  /**
   * Returns options that compress outgoing messages with the named compressor, e.g. {@code "gzip"}
   * (null for none). The name must be known to the channel's compressor registry.
   */
  public CallOptions withCompression(String compressorName) {
    if (Objects.equals(compressorName, this.compressorName)) {
      return this;
    }
    return toBuilder().setCompression(compressorName).build();
  }

  /** Returns the compressor name, or null if messages are sent uncompressed. */
  public String getCompressor() {
    return compressorName;
  }

  /**
   * Returns options that run the call's callbacks on {@code executor} instead of the channel's
   * (null to use the channel's).
   */
  public CallOptions withExecutor(Executor executor) {
    if (executor == this.executor) {
      return this;
    }
    return toBuilder().setExecutor(executor).build();
  }

  /** Returns the executor override, or null if none. */
  public Executor getExecutor() {
    return executor;
  }

  /**
   * Returns options for a wait-for-ready call: when the channel is in transient failure, the call
   * waits for it to become ready (until its deadline) instead of failing at once with {@code
   * UNAVAILABLE}.
   */
  public CallOptions withWaitForReady() {
    return setWaitForReady(true);
  }

  /** Returns options for a fail-fast call (the default). */
  public CallOptions withoutWaitForReady() {
    return setWaitForReady(false);
  }

  private CallOptions setWaitForReady(boolean waitForReady) {
    if (waitForReady == this.waitForReady) {
      return this;
    }
    return toBuilder().setWaitForReady(waitForReady).build();
  }

  /** Returns whether the call waits for the channel to be ready. Default false. */
  public boolean isWaitForReady() {
    return waitForReady;
  }

  /**
   * Returns options limiting the size of each received message, in bytes. A larger message fails
   * the call with {@code RESOURCE_EXHAUSTED}. Overrides the channel's limit.
   *
   * @throws IllegalArgumentException if {@code maxSize} is negative
   */
  public CallOptions withMaxInboundMessageSize(int maxSize) {
    if (maxInboundMessageSize != null && maxInboundMessageSize == maxSize) {
      return this;
    }
    return toBuilder().setMaxInboundMessageSize(maxSize).build();
  }

  /** Returns the inbound message size limit, or null to use the channel's. */
  public Integer getMaxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  /**
   * Returns options limiting the size of each sent message, in bytes. Sending a larger message
   * fails the call with {@code RESOURCE_EXHAUSTED}.
   *
   * @throws IllegalArgumentException if {@code maxSize} is negative
   */
  public CallOptions withMaxOutboundMessageSize(int maxSize) {
    if (maxOutboundMessageSize != null && maxOutboundMessageSize == maxSize) {
      return this;
    }
    return toBuilder().setMaxOutboundMessageSize(maxSize).build();
  }

  /** Returns the outbound message size limit, or null for no limit beyond the channel's. */
  public Integer getMaxOutboundMessageSize() {
    return maxOutboundMessageSize;
  }

  /**
   * Returns options with custom option {@code key} set to {@code value}; null removes it, so that
   * {@link #getOption} returns the key's default again.
   */
  public <T> CallOptions withOption(Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    int index = indexOf(customOptions, key);
    if (index < 0 ? value == null : customOptions[index][1] == value) {
      return this;
    }
    return toBuilder().setOption(key, value).build();
  }

  /**
   * Returns options that also trace each attempt of the call with a tracer from {@code factory},
   * after the factories already added. See {@link ClientStreamTracer}.
   */
  public CallOptions withStreamTracerFactory(ClientStreamTracer.Factory factory) {
    return toBuilder().addStreamTracerFactory(factory).build();
  }

  /** Returns the call's tracer factories in the order added (unmodifiable; empty by default). */
  public List<ClientStreamTracer.Factory> getStreamTracerFactories() {
    return streamTracerFactories;
  }

  /** Returns the value of custom option {@code key}, or its default if it is not set. */
  public <T> T getOption(Key<T> key) {
    Objects.requireNonNull(key, "key");
    int index = indexOf(customOptions, key);
    if (index < 0) {
      return key.defaultValue;
    }
    // Safe: withOption(Key<T>, T) is the only way in, so the value's type matches its key.
    @SuppressWarnings("unchecked")
    T value = (T) customOptions[index][1];
    return value;
  }

  private static int indexOf(Object[][] customOptions, Key<?> key) {
    for (int i = 0; i < customOptions.length; i++) {
      if (customOptions[i][0] == key) {
        return i;
      }
    }
    return -1;
  }

  /** Lists the options that differ from {@link #DEFAULT}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CallOptions{");
    int start = sb.length();
    appendIfSet(sb, "deadline", deadline);
    appendIfSet(sb, "authority", authority);
    appendIfSet(sb, "callCredentials", credentials);
    appendIfSet(sb, "compressor", compressorName);
    appendIfSet(sb, "executor", executor);
    if (waitForReady) {
      appendIfSet(sb, "waitForReady", true);
    }
    appendIfSet(sb, "maxInboundMessageSize", maxInboundMessageSize);
    appendIfSet(sb, "maxOutboundMessageSize", maxOutboundMessageSize);
    if (!streamTracerFactories.isEmpty()) {
      appendIfSet(sb, "streamTracerFactories", streamTracerFactories);
    }
    for (Object[] option : customOptions) {
      appendIfSet(sb, String.valueOf(option[0]), option[1]);
    }
    if (sb.length() > start) {
      sb.setLength(sb.length() - 2); // drop the trailing ", "
    }
    return sb.append('}').toString();
  }

  private static void appendIfSet(StringBuilder sb, String name, Object value) {
    if (value != null) {
      sb.append(name).append('=').append(value).append(", ");
    }
  }

  /**
   * Sets several options at once: {@code CallOptions.newBuilder().setDeadline(d)
   * .setWaitForReady(true).build()}, or {@code options.toBuilder()...build()} to start from
   * existing options. Each setter has the meaning of the matching {@code withX} method of {@link
   * CallOptions}.
   *
   * <p>Not thread-safe: fill from one thread, then build; the built options are immutable.
   */
  public static final class Builder {
    private Deadline deadline;
    private String authority;
    private CallCredentials credentials;
    private String compressorName;
    private Executor executor;
    private boolean waitForReady;
    private Integer maxInboundMessageSize;
    private Integer maxOutboundMessageSize;
    private Object[][] customOptions = NO_CUSTOM_OPTIONS;
    private List<ClientStreamTracer.Factory> streamTracerFactories = List.of();

    private Builder() {}

    /** Adds a tracer factory after those already added. See {@link ClientStreamTracer}. */
    public Builder addStreamTracerFactory(ClientStreamTracer.Factory factory) {
      Objects.requireNonNull(factory, "factory");
      List<ClientStreamTracer.Factory> added = new ArrayList<>(streamTracerFactories.size() + 1);
      added.addAll(streamTracerFactories);
      added.add(factory);
      streamTracerFactories = Collections.unmodifiableList(added);
      return this;
    }

    /** The deadline, null for none (the default). See {@link CallOptions#withDeadline}. */
    public Builder setDeadline(Deadline deadline) {
      this.deadline = deadline;
      return this;
    }

    /** The {@code :authority} override, null for the channel's (the default). */
    public Builder setAuthority(String authority) {
      this.authority = authority;
      return this;
    }

    /** Credentials applied to the call, null for none (the default). */
    public Builder setCallCredentials(CallCredentials credentials) {
      this.credentials = credentials;
      return this;
    }

    /** The compressor for outgoing messages by name, null for none (the default). */
    public Builder setCompression(String compressorName) {
      this.compressorName = compressorName;
      return this;
    }

    /** The executor for the call's callbacks, null for the channel's (the default). */
    public Builder setExecutor(Executor executor) {
      this.executor = executor;
      return this;
    }

    /** Whether the call waits for the channel to be ready; default false (fail-fast). */
    public Builder setWaitForReady(boolean waitForReady) {
      this.waitForReady = waitForReady;
      return this;
    }

    /**
     * The largest message the call accepts, in bytes; null for the channel's limit (the default).
     *
     * @throws IllegalArgumentException if {@code maxSize} is negative
     */
    public Builder setMaxInboundMessageSize(Integer maxSize) {
      this.maxInboundMessageSize = checkSize(maxSize);
      return this;
    }

    /**
     * The largest message the call sends, in bytes; null for no limit beyond the channel's (the
     * default).
     *
     * @throws IllegalArgumentException if {@code maxSize} is negative
     */
    public Builder setMaxOutboundMessageSize(Integer maxSize) {
      this.maxOutboundMessageSize = checkSize(maxSize);
      return this;
    }

    /** Sets custom option {@code key} to {@code value}; null removes it. */
    public <T> Builder setOption(Key<T> key, T value) {
      Objects.requireNonNull(key, "key");
      int index = indexOf(customOptions, key);
      if (value == null) {
        if (index >= 0) {
          Object[][] updated = new Object[customOptions.length - 1][];
          System.arraycopy(customOptions, 0, updated, 0, index);
          System.arraycopy(
              customOptions, index + 1, updated, index, customOptions.length - index - 1);
          customOptions = updated;
        }
      } else if (index >= 0) {
        customOptions = customOptions.clone();
        customOptions[index] = new Object[] {key, value};
      } else {
        customOptions = Arrays.copyOf(customOptions, customOptions.length + 1);
        customOptions[customOptions.length - 1] = new Object[] {key, value};
      }
      return this;
    }

    /** Returns immutable options holding what was set. */
    public CallOptions build() {
      return new CallOptions(this);
    }

    private static Integer checkSize(Integer maxSize) {
      if (maxSize != null && maxSize < 0) {
        throw new IllegalArgumentException("maxSize must be >= 0, was " + maxSize);
      }
      return maxSize;
    }
  }

  /**
   * Identifies a custom call option, for interceptors and load balancers to pass data along a call.
   * Keys compare by identity. Immutable; thread-safe.
   */
  public static final class Key<T> {
    private final String debugString;
    private final T defaultValue;

    private Key(String debugString, T defaultValue) {
      this.debugString = Objects.requireNonNull(debugString, "debugString");
      this.defaultValue = defaultValue;
    }

    /** Creates a key whose default value is null. */
    public static <T> Key<T> create(String debugString) {
      return new Key<>(debugString, null);
    }

    /** Creates a key with a default returned by {@link CallOptions#getOption} when unset. */
    public static <T> Key<T> createWithDefault(String debugString, T defaultValue) {
      return new Key<>(debugString, defaultValue);
    }

    /** Returns the value used when the option is not set. */
    public T getDefault() {
      return defaultValue;
    }

    @Override
    public String toString() {
      return debugString;
    }
  }
}
