package dev.tern;

import java.io.InputStream;
import java.util.Objects;

/**
 * Describes one RPC method: its full name ({@code "pkg.Service/Method"}), its {@link MethodType},
 * and how to turn requests and responses into bytes and back. Generated code creates one per method
 * as a constant; hand-written services build them with {@link #newBuilder()}.
 *
 * <p>Immutable; thread-safe (provided the marshallers are, which they must be).
 *
 * @param <ReqT> the request message type
 * @param <RespT> the response message type
 */
public final class MethodDescriptor<ReqT, RespT> {

  private final MethodType type;
  private final String fullMethodName;
  private final String serviceName;
  private final String bareMethodName;
  private final String path;
  private final Marshaller<ReqT> requestMarshaller;
  private final Marshaller<RespT> responseMarshaller;
  private final Object schemaDescriptor;
  private final boolean idempotent;
  private final boolean safe;
  private final boolean sampledToLocalTracing;

  private MethodDescriptor(Builder<ReqT, RespT> builder, int slash) {
    this.type = builder.type;
    this.fullMethodName = builder.fullMethodName;
    this.serviceName = fullMethodName.substring(0, slash);
    this.bareMethodName = fullMethodName.substring(slash + 1);
    this.path = "/" + fullMethodName;
    this.requestMarshaller = builder.requestMarshaller;
    this.responseMarshaller = builder.responseMarshaller;
    this.schemaDescriptor = builder.schemaDescriptor;
    this.idempotent = builder.idempotent || builder.safe;
    this.safe = builder.safe;
    this.sampledToLocalTracing = builder.sampledToLocalTracing;
  }

  /** Returns an empty builder; type, full method name and both marshallers must be set. */
  public static <ReqT, RespT> Builder<ReqT, RespT> newBuilder() {
    return new Builder<>();
  }

  /** Returns a builder with both marshallers set. */
  public static <ReqT, RespT> Builder<ReqT, RespT> newBuilder(
      Marshaller<ReqT> requestMarshaller, Marshaller<RespT> responseMarshaller) {
    return new Builder<ReqT, RespT>()
        .setRequestMarshaller(requestMarshaller)
        .setResponseMarshaller(responseMarshaller);
  }

  /** Returns a builder initialised with every property of this descriptor. */
  public Builder<ReqT, RespT> toBuilder() {
    return new Builder<ReqT, RespT>()
        .setType(type)
        .setFullMethodName(fullMethodName)
        .setRequestMarshaller(requestMarshaller)
        .setResponseMarshaller(responseMarshaller)
        .setSchemaDescriptor(schemaDescriptor)
        .setIdempotent(idempotent)
        .setSafe(safe)
        .setSampledToLocalTracing(sampledToLocalTracing);
  }

  /** Returns {@code service + "/" + method}, the full method name. */
  public static String generateFullMethodName(String fullServiceName, String methodName) {
    Objects.requireNonNull(fullServiceName, "fullServiceName");
    Objects.requireNonNull(methodName, "methodName");
    return fullServiceName + "/" + methodName;
  }

  /**
   * Returns the service part (before the last {@code '/'}) of a full method name, or null if it has
   * no {@code '/'}.
   */
  public static String extractFullServiceName(String fullMethodName) {
    Objects.requireNonNull(fullMethodName, "fullMethodName");
    int slash = fullMethodName.lastIndexOf('/');
    return slash < 0 ? null : fullMethodName.substring(0, slash);
  }

  /**
   * Returns the method part (after the last {@code '/'}) of a full method name, or null if it has
   * no {@code '/'}.
   */
  public static String extractBareMethodName(String fullMethodName) {
    Objects.requireNonNull(fullMethodName, "fullMethodName");
    int slash = fullMethodName.lastIndexOf('/');
    return slash < 0 ? null : fullMethodName.substring(slash + 1);
  }

  /** Returns the full method name, e.g. {@code "helloworld.Greeter/SayHello"}. */
  public String getFullMethodName() {
    return fullMethodName;
  }

  /** Returns the HTTP/2 {@code :path}: {@code "/" + getFullMethodName()}. */
  public String getPath() {
    return path;
  }

  /** Returns the fully qualified service name, e.g. {@code "helloworld.Greeter"}. */
  public String getServiceName() {
    return serviceName;
  }

  /** Returns the method name without the service, e.g. {@code "SayHello"}. */
  public String getBareMethodName() {
    return bareMethodName;
  }

  /** Returns the method's streaming shape. */
  public MethodType getType() {
    return type;
  }

  /** Returns the marshaller for requests. */
  public Marshaller<ReqT> getRequestMarshaller() {
    return requestMarshaller;
  }

  /** Returns the marshaller for responses. */
  public Marshaller<RespT> getResponseMarshaller() {
    return responseMarshaller;
  }

  /** Serialises a request with the request marshaller. */
  public InputStream streamRequest(ReqT request) {
    return requestMarshaller.stream(request);
  }

  /** Parses a request with the request marshaller. */
  public ReqT parseRequest(InputStream input) {
    return requestMarshaller.parse(input);
  }

  /** Serialises a response with the response marshaller. */
  public InputStream streamResponse(RespT response) {
    return responseMarshaller.stream(response);
  }

  /** Parses a response with the response marshaller. */
  public RespT parseResponse(InputStream input) {
    return responseMarshaller.parse(input);
  }

  /**
   * Returns whether calling the method more than once has the same effect as calling it once, so
   * the runtime may retry it more freely. Default false.
   */
  public boolean isIdempotent() {
    return idempotent;
  }

  /** Returns whether the method has no side effects (which implies idempotent). Default false. */
  public boolean isSafe() {
    return safe;
  }

  /** Returns whether calls to this method should be sampled into local tracing. Default false. */
  public boolean isSampledToLocalTracing() {
    return sampledToLocalTracing;
  }

  /**
   * Returns the schema object attached by generated code (for example a protobuf descriptor
   * supplier, used by reflection), or null.
   */
  public Object getSchemaDescriptor() {
    return schemaDescriptor;
  }

  @Override
  public String toString() {
    return "MethodDescriptor{"
        + fullMethodName
        + ", type="
        + type
        + ", idempotent="
        + idempotent
        + ", safe="
        + safe
        + "}";
  }

  /** The streaming shape of a method. */
  public enum MethodType {
    /** One request, one response. */
    UNARY,
    /** A stream of requests, one response. */
    CLIENT_STREAMING,
    /** One request, a stream of responses. */
    SERVER_STREAMING,
    /** Streams in both directions. */
    BIDI_STREAMING,
    /** Shape not known (for example a generic proxy); treated as streaming in both directions. */
    UNKNOWN;

    /** Returns whether the client sends exactly one message. */
    public final boolean clientSendsOneMessage() {
      return this == UNARY || this == SERVER_STREAMING;
    }

    /** Returns whether the server sends exactly one message. */
    public final boolean serverSendsOneMessage() {
      return this == UNARY || this == CLIENT_STREAMING;
    }
  }

  /**
   * Converts messages of one type to and from bytes. Implementations must be thread-safe: one
   * instance serves every call of a method concurrently.
   *
   * @param <T> the message type
   */
  public interface Marshaller<T> {
    /** Returns a stream of {@code value}'s serialised bytes. */
    InputStream stream(T value);

    /**
     * Parses one message from {@code stream}, which holds exactly that message's bytes. Failures
     * should throw a {@link RuntimeException}; the runtime turns them into an error status.
     */
    T parse(InputStream stream);
  }

  /**
   * Builds a {@link MethodDescriptor}. {@link #build()} checks the configuration. Not thread-safe.
   *
   * @param <ReqT> the request message type
   * @param <RespT> the response message type
   */
  public static final class Builder<ReqT, RespT> {
    private MethodType type;
    private String fullMethodName;
    private Marshaller<ReqT> requestMarshaller;
    private Marshaller<RespT> responseMarshaller;
    private Object schemaDescriptor;
    private boolean idempotent;
    private boolean safe;
    private boolean sampledToLocalTracing;

    private Builder() {}

    /** Sets the streaming shape (required). */
    public Builder<ReqT, RespT> setType(MethodType type) {
      this.type = Objects.requireNonNull(type, "type");
      return this;
    }

    /** Sets the full method name, {@code "pkg.Service/Method"} (required). */
    public Builder<ReqT, RespT> setFullMethodName(String fullMethodName) {
      this.fullMethodName = Objects.requireNonNull(fullMethodName, "fullMethodName");
      return this;
    }

    /** Sets the request marshaller (required). */
    public Builder<ReqT, RespT> setRequestMarshaller(Marshaller<ReqT> requestMarshaller) {
      this.requestMarshaller = Objects.requireNonNull(requestMarshaller, "requestMarshaller");
      return this;
    }

    /** Sets the response marshaller (required). */
    public Builder<ReqT, RespT> setResponseMarshaller(Marshaller<RespT> responseMarshaller) {
      this.responseMarshaller = Objects.requireNonNull(responseMarshaller, "responseMarshaller");
      return this;
    }

    /** Attaches a schema object for tools such as reflection (default null). */
    public Builder<ReqT, RespT> setSchemaDescriptor(Object schemaDescriptor) {
      this.schemaDescriptor = schemaDescriptor;
      return this;
    }

    /** Marks the method idempotent (default false). */
    public Builder<ReqT, RespT> setIdempotent(boolean idempotent) {
      this.idempotent = idempotent;
      return this;
    }

    /**
     * Marks the method safe, i.e. free of side effects (default false). A safe method is also
     * idempotent: the built descriptor reports {@link MethodDescriptor#isIdempotent()} true.
     */
    public Builder<ReqT, RespT> setSafe(boolean safe) {
      this.safe = safe;
      return this;
    }

    /** Asks for calls to be sampled into local tracing (default false). */
    public Builder<ReqT, RespT> setSampledToLocalTracing(boolean sampledToLocalTracing) {
      this.sampledToLocalTracing = sampledToLocalTracing;
      return this;
    }

    /**
     * Builds the descriptor.
     *
     * @throws NullPointerException naming {@code type}, {@code fullMethodName}, {@code
     *     requestMarshaller} or {@code responseMarshaller} if one was not set
     * @throws IllegalArgumentException naming {@code fullMethodName} if it is not of the form
     *     {@code "service/method"} with exactly one {@code '/'} and non-empty parts
     */
    public MethodDescriptor<ReqT, RespT> build() {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(fullMethodName, "fullMethodName");
      Objects.requireNonNull(requestMarshaller, "requestMarshaller");
      Objects.requireNonNull(responseMarshaller, "responseMarshaller");
      int slash = fullMethodName.indexOf('/');
      if (slash <= 0
          || slash == fullMethodName.length() - 1
          || fullMethodName.indexOf('/', slash + 1) >= 0) {
        throw new IllegalArgumentException(
            "fullMethodName must be \"service/method\" with exactly one '/' and non-empty parts: \""
                + fullMethodName
                + "\"");
      }
      return new MethodDescriptor<>(this, slash);
    }
  }
}
