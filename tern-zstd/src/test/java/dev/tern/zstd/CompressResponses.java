package dev.tern.zstd;

import dev.tern.Metadata;
import dev.tern.ServerCall;
import dev.tern.ServerCallHandler;
import dev.tern.ServerInterceptor;

/** Asks every call's responses to be compressed with one encoding. Immutable; thread-safe. */
final class CompressResponses implements ServerInterceptor {
  private final String encoding;

  CompressResponses(String encoding) {
    this.encoding = encoding;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    call.setCompression(encoding);
    return next.startCall(call, headers);
  }
}
