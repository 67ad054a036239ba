package dev.tern.stub;

import dev.tern.Metadata;
import dev.tern.MethodDescriptor;
import dev.tern.ServerCall;
import dev.tern.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * A server call that records what the handler under test does with it. Like a real call, it rejects
 * a second close. Not thread-safe: the tests drive it from one thread.
 */
final class FakeServerCall extends ServerCall<String, String> {
  final MethodDescriptor<String, String> method;
  int requested;
  final List<String> sentMessages = new ArrayList<>();
  Status closeStatus;
  Metadata closeTrailers;
  boolean cancelled;
  boolean ready = true;
  String compression;
  Boolean messageCompression;

  FakeServerCall(MethodDescriptor.MethodType type) {
    this.method = StringMarshaller.method(type);
  }

  @Override
  public void request(int numMessages) {
    requested += numMessages;
  }

  @Override
  public void sendHeaders(Metadata headers) {}

  @Override
  public void sendMessage(String message) {
    if (closeStatus != null) {
      throw new IllegalStateException("call already closed");
    }
    sentMessages.add(message);
  }

  @Override
  public void close(Status status, Metadata trailers) {
    if (closeStatus != null) {
      throw new IllegalStateException("call already closed");
    }
    closeStatus = status;
    closeTrailers = trailers;
  }

  @Override
  public boolean isCancelled() {
    return cancelled;
  }

  @Override
  public boolean isReady() {
    return ready;
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    messageCompression = enabled;
  }

  @Override
  public void setCompression(String compressorName) {
    compression = compressorName;
  }

  @Override
  public MethodDescriptor<String, String> getMethodDescriptor() {
    return method;
  }
}
