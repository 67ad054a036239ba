package dev.tern.grpcjava.internal.server;

import dev.tern.grpcjava.internal.convert.Metadatas;
import dev.tern.grpcjava.internal.convert.Statuses;
import dev.tern.grpcjava.internal.convert.TransportAttributes;

/**
 * grpc-java's {@code ServerCall} over Tern's: what the handler sends is converted and sent by the
 * Tern call; {@link #getMethodDescriptor} is the handler's own grpc-java descriptor. Like any
 * {@code ServerCall}, not thread-safe: the handler calls it from one thread at a time.
 */
final class TernServerCall<ReqT, RespT> extends io.grpc.ServerCall<ReqT, RespT> {
  private final dev.tern.ServerCall<ReqT, RespT> call;
  private final io.grpc.MethodDescriptor<ReqT, RespT> method;

  TernServerCall(
      dev.tern.ServerCall<ReqT, RespT> call, io.grpc.MethodDescriptor<ReqT, RespT> method) {
    this.call = call;
    this.method = method;
  }

  @Override
  public void request(int numMessages) {
    call.request(numMessages);
  }

  @Override
  public void sendHeaders(io.grpc.Metadata headers) {
    call.sendHeaders(Metadatas.toTern(headers));
  }

  @Override
  public void sendMessage(RespT message) {
    call.sendMessage(message);
  }

  @Override
  public boolean isReady() {
    return call.isReady();
  }

  @Override
  public void close(io.grpc.Status status, io.grpc.Metadata trailers) {
    call.close(Statuses.toTern(status), Metadatas.toTern(trailers));
  }

  @Override
  public boolean isCancelled() {
    return call.isCancelled();
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    call.setMessageCompression(enabled);
  }

  @Override
  public void setCompression(String compressor) {
    call.setCompression(compressor);
  }

  @Override
  public io.grpc.SecurityLevel getSecurityLevel() {
    return TransportAttributes.securityLevel(call.getAttributes());
  }

  @Override
  public io.grpc.Attributes getAttributes() {
    return TransportAttributes.toGrpc(call.getAttributes());
  }

  @Override
  public String getAuthority() {
    return call.getAuthority();
  }

  @Override
  public io.grpc.MethodDescriptor<ReqT, RespT> getMethodDescriptor() {
    return method;
  }

  @Override
  public String toString() {
    return "TernServerCall{" + call + "}";
  }
}
