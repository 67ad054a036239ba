package dev.tern.grpcjava.internal.client;

import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Statuses;
import dev.tern.grpcjava.internal.convert.TransportAttributes;
import java.util.concurrent.Executor;

/**
 * grpc-java call credentials (set with {@code CallOptions.withCallCredentials} or a stub's {@code
 * withCallCredentials}) as Tern's: Tern asks for the request metadata before the call starts, and
 * grpc-java's credentials answer through the applier, their headers converted. The request info
 * they see names the grpc-java method and call options of the call. Thread-safe if the wrapped
 * credentials are.
 */
final class CallCredentialsAdapter extends dev.tern.CallCredentials {
  private final io.grpc.CallCredentials credentials;
  private final io.grpc.MethodDescriptor<?, ?> method;
  private final io.grpc.CallOptions callOptions;

  CallCredentialsAdapter(
      io.grpc.CallCredentials credentials,
      io.grpc.MethodDescriptor<?, ?> method,
      io.grpc.CallOptions callOptions) {
    this.credentials = credentials;
    this.method = method;
    this.callOptions = callOptions;
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo info, Executor appExecutor, MetadataApplier applier) {
    credentials.applyRequestMetadata(
        new io.grpc.CallCredentials.RequestInfo() {
          @Override
          public io.grpc.MethodDescriptor<?, ?> getMethodDescriptor() {
            return method;
          }

          @Override
          public io.grpc.CallOptions getCallOptions() {
            return callOptions;
          }

          @Override
          public io.grpc.SecurityLevel getSecurityLevel() {
            return io.grpc.SecurityLevel.valueOf(info.getSecurityLevel().name());
          }

          @Override
          public String getAuthority() {
            return info.getAuthority();
          }

          @Override
          public io.grpc.Attributes getTransportAttrs() {
            return TransportAttributes.toGrpc(info.getTransportAttrs());
          }
        },
        appExecutor,
        new io.grpc.CallCredentials.MetadataApplier() {
          @Override
          public void apply(io.grpc.Metadata headers) {
            applier.apply(Metadatas.toTern(headers));
          }

          @Override
          public void fail(io.grpc.Status status) {
            applier.fail(Statuses.toTern(status));
          }
        });
  }

  @Override
  public String toString() {
    return "grpc-java " + credentials;
  }
}
