package dev.tern.grpcjava.internal.balancer;

import dev.tern.grpcjava.internal.convert.Deadlines;
import dev.tern.grpcjava.internal.convert.GrpcJavaTracerFactory;
import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Methods;
import dev.tern.grpcjava.internal.convert.Statuses;

/**
 * A grpc-java balancer's {@code SubchannelPicker} as Tern's. Each pick shows the grpc-java picker
 * the call's options (deadline, wait-for-ready, authority, compressor, message limits; grpc-java's
 * custom option keys are not carried), a copy of its headers (what the picker adds to them is not
 * sent) and its method; each is converted only if the picker asks for it. Its result is converted:
 * a subchannel with its stream tracer factory, an error, a drop, or no result. What cannot map
 * drops the call with INTERNAL naming it, so that even a wait-for-ready call does not wait for
 * ever: a subchannel its helper did not make, an authority override (Tern's pick has none), a
 * picker that throws.
 *
 * <p>Thread-safe as the wrapped picker is (grpc-java requires its pickers to be): it holds nothing
 * else.
 */
final class GrpcJavaPicker extends dev.tern.LoadBalancer.SubchannelPicker {
  private final String policy;
  private final io.grpc.LoadBalancer.SubchannelPicker picker;

  GrpcJavaPicker(String policy, io.grpc.LoadBalancer.SubchannelPicker picker) {
    this.policy = policy;
    this.picker = picker;
  }

  @Override
  public dev.tern.LoadBalancer.PickResult pickSubchannel(
      dev.tern.LoadBalancer.PickSubchannelArgs args) {
    PickArgs grpcArgs = new PickArgs(args);
    io.grpc.LoadBalancer.PickResult result;
    try {
      result = picker.pickSubchannel(grpcArgs);
    } catch (RuntimeException e) {
      return unmappable("its picker threw " + e, e);
    }
    if (result == null) {
      return unmappable("its picker returned null", null);
    }
    if (result.getSubchannel() != null) {
      return withSubchannel(result, grpcArgs);
    }
    if (result.isDrop()) {
      return dev.tern.LoadBalancer.PickResult.withDrop(Statuses.toTern(result.getStatus()));
    }
    if (!result.getStatus().isOk()) {
      return dev.tern.LoadBalancer.PickResult.withError(Statuses.toTern(result.getStatus()));
    }
    return dev.tern.LoadBalancer.PickResult.withNoResult();
  }

  private dev.tern.LoadBalancer.PickResult withSubchannel(
      io.grpc.LoadBalancer.PickResult result, PickArgs args) {
    if (!(result.getSubchannel() instanceof GrpcJavaSubchannel picked)) {
      return unmappable(
          "it picked a subchannel its helper did not create: " + result.getSubchannel(), null);
    }
    if (result.getAuthorityOverride() != null) {
      return unmappable(
          "it picked with an authority override ("
              + result.getAuthorityOverride()
              + "), which Tern's picks do not have",
          null);
    }
    dev.tern.LoadBalancer.Subchannel subchannel = picked.ternSubchannel();
    if (subchannel == null) {
      return dev.tern.LoadBalancer.PickResult.withNoResult(); // not made yet; the next picker
    }
    io.grpc.ClientStreamTracer.Factory tracers = result.getStreamTracerFactory();
    return dev.tern.LoadBalancer.PickResult.withSubchannel(
        subchannel,
        tracers == null ? null : new GrpcJavaTracerFactory(tracers, args.getCallOptions()));
  }

  private dev.tern.LoadBalancer.PickResult unmappable(String what, Throwable cause) {
    return dev.tern.LoadBalancer.PickResult.withDrop(
        dev.tern.Status.INTERNAL
            .withDescription("grpc-java load balancer " + policy + ": " + what)
            .withCause(cause));
  }

  @Override
  public String toString() {
    return "GrpcJavaPicker{" + policy + ", " + picker + "}";
  }

  /** One pick's arguments, converted on first use. Used by one pick, on its thread. */
  private static final class PickArgs extends io.grpc.LoadBalancer.PickSubchannelArgs {
    private final dev.tern.LoadBalancer.PickSubchannelArgs args;
    private io.grpc.CallOptions callOptions;
    private io.grpc.Metadata headers;
    private io.grpc.MethodDescriptor<?, ?> method;

    PickArgs(dev.tern.LoadBalancer.PickSubchannelArgs args) {
      this.args = args;
    }

    @Override
    public io.grpc.CallOptions getCallOptions() {
      if (callOptions == null) {
        callOptions = toGrpc(args.getCallOptions());
      }
      return callOptions;
    }

    @Override
    public io.grpc.Metadata getHeaders() {
      if (headers == null) {
        headers = Metadatas.toGrpc(args.getHeaders());
      }
      return headers;
    }

    @Override
    public io.grpc.MethodDescriptor<?, ?> getMethodDescriptor() {
      if (method == null) {
        method = Methods.toGrpc(args.getMethodDescriptor());
      }
      return method;
    }

    private static io.grpc.CallOptions toGrpc(dev.tern.CallOptions options) {
      io.grpc.CallOptions converted = io.grpc.CallOptions.DEFAULT;
      if (options.getDeadline() != null) {
        converted = converted.withDeadline(Deadlines.toGrpc(options.getDeadline()));
      }
      if (options.isWaitForReady()) {
        converted = converted.withWaitForReady();
      }
      if (options.getAuthority() != null) {
        converted = converted.withAuthority(options.getAuthority());
      }
      if (options.getCompressor() != null) {
        converted = converted.withCompression(options.getCompressor());
      }
      if (options.getMaxInboundMessageSize() != null) {
        converted = converted.withMaxInboundMessageSize(options.getMaxInboundMessageSize());
      }
      if (options.getMaxOutboundMessageSize() != null) {
        converted = converted.withMaxOutboundMessageSize(options.getMaxOutboundMessageSize());
      }
      return converted;
    }
  }
}
