/**
 * The {@code zstd} message encoding ({@code dev.tern.zstd}), on zstd-jni: on the module or class
 * path it joins the default compressor and decompressor registries through tern-core's {@code
 * CodecProvider}.
 */
module dev.tern.zstd {
  requires transitive dev.tern.core;
  requires com.github.luben.zstd_jni;
  requires java.logging;

  exports dev.tern.zstd;

  provides dev.tern.CodecProvider with
      dev.tern.zstd.ZstdCodecProvider;
}
