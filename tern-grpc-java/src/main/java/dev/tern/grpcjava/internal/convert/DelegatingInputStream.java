package dev.tern.grpcjava.internal.convert;

import java.io.IOException;
import java.io.InputStream;

/**
 * An input stream that forwards every read to another. Like any stream, not thread-safe: one
 * message stream is read by one thread at a time.
 */
class DelegatingInputStream extends InputStream {
  final InputStream delegate;

  DelegatingInputStream(InputStream delegate) {
    this.delegate = delegate;
  }

  @Override
  public int read() throws IOException {
    return delegate.read();
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    return delegate.read(b, off, len);
  }

  @Override
  public long skip(long n) throws IOException {
    return delegate.skip(n);
  }

  @Override
  public int available() throws IOException {
    return delegate.available();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public boolean markSupported() {
    return delegate.markSupported();
  }

  @Override
  public synchronized void mark(int readlimit) {
    delegate.mark(readlimit);
  }

  @Override
  public synchronized void reset() throws IOException {
    delegate.reset();
  }
}
