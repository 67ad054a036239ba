package dev.tern.benchmarks.jmh;

import dev.tern.netty.internal.http2.HeaderSink;
import dev.tern.netty.internal.http2.HpackDecoder;
import dev.tern.netty.internal.http2.HpackEncoder;
import dev.tern.netty.internal.http2.HpackException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * HPACK alone: Tern's own decoder and encoder (dev.tern.netty.internal.http2, issue 34) beside
 * Netty's ({@code DefaultHttp2HeadersDecoder} / {@code DefaultHttp2HeadersEncoder}, which hold
 * Netty's {@code HpackDecoder} / {@code HpackEncoder}).
 *
 * <p>Decoding: a gRPC request (9 fields) and response (3 fields) header block, encoded as grpc-go
 * sends a connection's first request: every string Huffman-coded, the repeating fields added to the
 * dynamic table (so each decode also inserts, and the table evicts, as on a real connection's first
 * call). Tern's decoder hands each field to a sink that keeps the name and value arrays the way
 * gRPC's {@code Metadata} would; Netty's builds its {@code DefaultHttp2Headers} (header validation
 * off: only HPACK is measured). Encoding: the same fields into a reused buffer, steady state (after
 * the first call the repeating fields are indexes); Tern Huffman-codes what is not indexed, Netty's
 * default encoder does not (its Huffman threshold is 512 bytes). Run with {@code -prof gc} for
 * bytes per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HpackBenchmark {
  private static final long MAX_HEADER_LIST_SIZE = 8192;

  private static final String[][] REQUEST = {
    {":method", "POST"},
    {":scheme", "http"},
    {":path", "/grpc.testing.BenchmarkService/UnaryCall"},
    {":authority", "localhost:50051"},
    {"te", "trailers"},
    {"content-type", "application/grpc"},
    {"user-agent", "grpc-java-netty/1.79.0"},
    {"grpc-accept-encoding", "gzip"},
    {"grpc-timeout", "1S"},
  };
  private static final String[][] RESPONSE = {
    {":status", "200"}, {"content-type", "application/grpc"}, {"grpc-encoding", "identity"},
  };

  /** The gRPC request's headers (9 fields) or the response's (3). */
  @Param({"request", "response"})
  public String headers;

  private ByteBuf block;
  private byte[][] fields;
  private Http2Headers nettyHeaders;

  private HpackDecoder ternDecoder;
  private DefaultHttp2HeadersDecoder nettyDecoder;
  private HpackEncoder ternEncoder;
  private DefaultHttp2HeadersEncoder nettyEncoder;
  private ByteBuf out;
  private final MetadataSink sink = new MetadataSink();

  /** Keeps the arrays as gRPC's Metadata would (names and values, alternating). */
  static final class MetadataSink implements HeaderSink {
    final byte[][] namesAndValues = new byte[64][];
    int count;

    @Override
    public void header(byte[] name, byte[] value, boolean sensitive) {
      namesAndValues[count++] = name;
      namesAndValues[count++] = value;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    String[][] list = headers.equals("request") ? REQUEST : RESPONSE;
    fields = bytes(list);
    nettyHeaders = toNettyHeaders(list);
    block = ternBlock(fields);
    ternDecoder = new HpackDecoder(MAX_HEADER_LIST_SIZE, HpackDecoder.DEFAULT_HEADER_TABLE_SIZE);
    nettyDecoder = new DefaultHttp2HeadersDecoder(false, MAX_HEADER_LIST_SIZE);
    ternEncoder = new HpackEncoder();
    nettyEncoder = new DefaultHttp2HeadersEncoder();
    out = Unpooled.buffer(1024);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    block.release();
    out.release();
  }

  private static byte[][] bytes(String[][] fields) {
    byte[][] b = new byte[fields.length * 2][];
    for (int i = 0; i < fields.length; i++) {
      b[2 * i] = fields[i][0].getBytes(StandardCharsets.US_ASCII);
      b[2 * i + 1] = fields[i][1].getBytes(StandardCharsets.US_ASCII);
    }
    return b;
  }

  private static Http2Headers toNettyHeaders(String[][] fields) {
    Http2Headers headers = new DefaultHttp2Headers();
    for (String[] field : fields) {
      headers.add(field[0], field[1]);
    }
    return headers;
  }

  /** A first request's block: Huffman everywhere, repeating fields inserted. */
  private static ByteBuf ternBlock(byte[][] fields) {
    HpackEncoder encoder = new HpackEncoder();
    ByteBuf block = Unpooled.buffer();
    encoder.beginBlock(block);
    for (int i = 0; i < fields.length; i += 2) {
      encoder.header(block, fields[i], fields[i + 1], false);
    }
    return block;
  }

  @Benchmark
  public int decodeTern() throws HpackException {
    sink.count = 0;
    ternDecoder.decode(block.duplicate(), sink);
    return sink.count;
  }

  @Benchmark
  public Http2Headers decodeNetty() throws Http2Exception {
    return nettyDecoder.decodeHeaders(1, block.duplicate());
  }

  @Benchmark
  public int encodeTern() {
    out.clear();
    ternEncoder.beginBlock(out);
    for (int i = 0; i < fields.length; i += 2) {
      ternEncoder.header(out, fields[i], fields[i + 1], false);
    }
    return out.writerIndex();
  }

  @Benchmark
  public int encodeNetty() throws Http2Exception {
    out.clear();
    nettyEncoder.encodeHeaders(1, nettyHeaders, out);
    return out.writerIndex();
  }
}
