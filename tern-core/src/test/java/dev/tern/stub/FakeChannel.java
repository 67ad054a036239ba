package dev.tern.stub;

import dev.tern.CallOptions;
import dev.tern.Channel;
import dev.tern.ClientCall;
import dev.tern.MethodDescriptor;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A channel handing out {@link FakeClientCall}s for String methods, queued for the test to take. An
 * optional responder reacts when a call half-closes (on the half-closing thread). Thread-safe.
 */
final class FakeChannel extends Channel {
  private final BlockingQueue<FakeClientCall> calls = new LinkedBlockingQueue<>();
  private volatile Consumer<FakeClientCall> responder = call -> {};
  private volatile RuntimeException sendMessageFailure;

  /** Runs {@code responder} whenever a call half-closes. */
  FakeChannel respondOnHalfClose(Consumer<FakeClientCall> responder) {
    this.responder = responder;
    return this;
  }

  /** Makes {@code sendMessage} of the calls created from now on throw {@code failure}. */
  FakeChannel failSendsWith(RuntimeException failure) {
    this.sendMessageFailure = failure;
    return this;
  }

  void onHalfClose(FakeClientCall call) {
    responder.accept(call);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    // The stub tests only use String-to-String methods.
    @SuppressWarnings("unchecked")
    FakeClientCall call =
        new FakeClientCall((MethodDescriptor<String, String>) (Object) method, callOptions, this);
    call.sendMessageFailure = sendMessageFailure;
    calls.add(call);
    @SuppressWarnings("unchecked")
    ClientCall<ReqT, RespT> typed = (ClientCall<ReqT, RespT>) (Object) call;
    return typed;
  }

  @Override
  public String authority() {
    return "fake";
  }

  /** Returns the next call created, waiting up to 5 seconds; fails if there is none. */
  FakeClientCall takeCall() throws InterruptedException {
    FakeClientCall call = calls.poll(5, TimeUnit.SECONDS);
    if (call == null) {
      throw new AssertionError("no call was created");
    }
    return call;
  }
}
