package dev.tern.zstd;

import com.github.luben.zstd.util.Native;
import dev.tern.Codec;
import dev.tern.CodecProvider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Adds {@link ZstdCodec} (at its default level) to the default compressor and decompressor
 * registries, found by {@link java.util.ServiceLoader}: with {@code tern-zstd} on the path, servers
 * and channels that keep the default registries accept {@code zstd}, advertise it in {@code
 * grpc-accept-encoding}, and compress with it when a call asks. Unavailable, and logged once as a
 * warning, where zstd-jni's native library does not load (a platform it has no build for).
 * Stateless; thread-safe.
 */
public final class ZstdCodecProvider extends CodecProvider {
  private static final Logger logger = Logger.getLogger(ZstdCodecProvider.class.getName());

  /** For {@link java.util.ServiceLoader}. */
  public ZstdCodecProvider() {}

  @Override
  public boolean isAvailable() {
    try {
      Native.load();
      return true;
    } catch (LinkageError | RuntimeException e) {
      logger.log(
          Level.WARNING,
          "zstd-jni's native library did not load; the zstd message encoding is not offered",
          e);
      return false;
    }
  }

  @Override
  public Codec getCodec() {
    return new ZstdCodec();
  }
}
