package dev.tern.services.binarylog;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.MessageLite;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes entries to a file as length-delimited protobufs (each one a varint length, then the
 * entry), the format {@code GrpcLogEntry.parseDelimitedFrom} reads back one at a time.
 *
 * <p>Writes are buffered; {@link #flush()} and {@link #close()} push them to the file. A failed
 * write is logged once (at WARNING) and the sink drops every later entry; calls never fail because
 * of it.
 *
 * <p>Thread-safe: one lock guards the stream; entries are written whole, in the order the lock is
 * taken. Nothing else runs under the lock.
 */
public final class FileBinaryLogSink implements BinaryLogSink {
  private static final Logger logger = Logger.getLogger(FileBinaryLogSink.class.getName());

  private final Path path;

  @GuardedBy("this")
  private final OutputStream out;

  @GuardedBy("this")
  private boolean failed;

  @GuardedBy("this")
  private boolean closed;

  /**
   * Creates (or truncates) {@code path} and writes entries to it.
   *
   * @throws IOException if the file cannot be opened for writing
   */
  public FileBinaryLogSink(Path path) throws IOException {
    this.path = Objects.requireNonNull(path, "path");
    this.out = new BufferedOutputStream(Files.newOutputStream(path));
  }

  /**
   * A sink on a new file {@code binarylog*.log} in the system's temporary directory ({@code
   * java.io.tmpdir}); its name is logged at INFO and given by {@link #path()}.
   *
   * @throws IOException if the file cannot be created
   */
  public static FileBinaryLogSink createTempFile() throws IOException {
    Path path = Files.createTempFile("binarylog", ".log");
    logger.log(Level.INFO, "Writing the binary log to {0}", path);
    return new FileBinaryLogSink(path);
  }

  /** The file written to. */
  public Path path() {
    return path;
  }

  @Override
  public synchronized void write(MessageLite entry) {
    Objects.requireNonNull(entry, "entry");
    if (closed || failed) {
      return;
    }
    try {
      entry.writeDelimitedTo(out);
    } catch (IOException e) {
      failed = true;
      logger.log(Level.WARNING, "Writing to the binary log " + path + " failed; logging stops", e);
    }
  }

  /** Pushes the buffered entries to the file. */
  public synchronized void flush() throws IOException {
    if (!closed && !failed) {
      out.flush();
    }
  }

  /**
   * Flushes and closes the file; later entries are dropped. Closing twice does nothing.
   *
   * @throws IOException if the last entries cannot be written (not thrown again after a write
   *     failure that was already logged)
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      out.close();
    } catch (IOException e) {
      if (!failed) {
        throw e;
      }
    }
  }

  @Override
  public String toString() {
    return "FileBinaryLogSink{" + path + "}";
  }
}
