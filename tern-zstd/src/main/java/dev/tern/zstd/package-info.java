/**
 * The {@code zstd} message encoding (RFC 8878, proposed gRFC A122) beside tern-core's {@code gzip}:
 * {@link dev.tern.zstd.ZstdCodec} compresses each message as one zstd frame through zstd-jni's
 * streams; {@link dev.tern.zstd.ZstdCodecProvider} adds it to the default registries when this jar
 * is on the path (so servers accept and advertise {@code zstd}, and clients may choose it with
 * {@code withCompression("zstd")}). Package-private: {@code ZstdFrameHeader}, which reads and
 * checks the first frame's header before any native memory is taken, and {@code
 * ZstdMessageInputStream}, which opens zstd's decoder on the first read. No threads of its own; the
 * codec is immutable and each stream belongs to one message and the thread reading or writing it.
 */
package dev.tern.zstd;
