package dev.tern.benchmarks.jmh;

import dev.tern.Metadata;
import dev.tern.internal.wire.Base64Codec;
import dev.tern.netty.internal.codec.GrpcHttp2HeadersDecoder;
import dev.tern.netty.internal.codec.GrpcRequestHeaders;
import dev.tern.netty.internal.codec.GrpcResponseHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Inbound header decoding as a gRPC server and client do it: the HPACK block of the 9 typical
 * request headers (and of the 2 response headers) decoded, looked up the way the transport's
 * handlers do, and turned into {@link Metadata}. Tern's gRPC-specific holder ({@link
 * GrpcHttp2HeadersDecoder}) against Netty's {@code DefaultHttp2Headers} plus the conversion a
 * transport built on it needs. Lives in Tern's package to reach the package-private decoder. Run
 * with {@code -prof gc} for bytes per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HeadersDecodingBenchmark {
  private static final long MAX_HEADER_LIST_SIZE = 8192;

  private ByteBuf requestBlock;
  private ByteBuf responseBlock;
  private GrpcHttp2HeadersDecoder ternServer;
  private GrpcHttp2HeadersDecoder ternClient;
  private DefaultHttp2HeadersDecoder nettyServer;
  private DefaultHttp2HeadersDecoder nettyClient;

  @Setup(Level.Trial)
  public void setUp() throws Http2Exception {
    Http2Headers request =
        new DefaultHttp2Headers()
            .method("POST")
            .scheme("http")
            .path("/grpc.testing.BenchmarkService/UnaryCall")
            .authority("localhost:50051")
            .add("te", "trailers")
            .add("content-type", "application/grpc")
            .add("user-agent", "grpc-java-netty/1.79.0")
            .add("grpc-accept-encoding", "gzip")
            .add("grpc-timeout", "1S");
    Http2Headers response =
        new DefaultHttp2Headers().status("200").add("content-type", "application/grpc");
    requestBlock = encode(request);
    responseBlock = encode(response);
    ternServer = new GrpcHttp2HeadersDecoder(true, MAX_HEADER_LIST_SIZE);
    ternClient = new GrpcHttp2HeadersDecoder(false, MAX_HEADER_LIST_SIZE);
    nettyServer = new DefaultHttp2HeadersDecoder(true, MAX_HEADER_LIST_SIZE);
    nettyClient = new DefaultHttp2HeadersDecoder(true, MAX_HEADER_LIST_SIZE);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    requestBlock.release();
    responseBlock.release();
  }

  private static ByteBuf encode(Http2Headers headers) throws Http2Exception {
    ByteBuf block = Unpooled.buffer();
    new DefaultHttp2HeadersEncoder().encodeHeaders(1, headers, block);
    return block;
  }

  /** Server side, Tern: decode, route on :path, check method and content-type, take metadata. */
  @Benchmark
  public Metadata requestTern() throws Http2Exception {
    GrpcRequestHeaders headers =
        (GrpcRequestHeaders) ternServer.decodeHeaders(1, requestBlock.duplicate());
    if (headers.path() == null || headers.method() == null || headers.contentType() == null) {
      throw new AssertionError("missing request headers");
    }
    return headers.toMetadata();
  }

  /** Server side, Netty's holder: the same lookups, then a conversion to metadata. */
  @Benchmark
  public Metadata requestNetty() throws Http2Exception {
    Http2Headers headers = nettyServer.decodeHeaders(1, requestBlock.duplicate());
    if (headers.path() == null
        || headers.method() == null
        || headers.get(HttpHeaderNames.CONTENT_TYPE) == null) {
      throw new AssertionError("missing request headers");
    }
    return toMetadata(headers);
  }

  /** Client side, Tern: decode, check :status, take metadata. */
  @Benchmark
  public Metadata responseTern() throws Http2Exception {
    GrpcResponseHeaders headers =
        (GrpcResponseHeaders) ternClient.decodeHeaders(1, responseBlock.duplicate());
    if (headers.status() == null) {
      throw new AssertionError("missing :status");
    }
    return headers.toMetadata();
  }

  /** Client side, Netty's holder. */
  @Benchmark
  public Metadata responseNetty() throws Http2Exception {
    Http2Headers headers = nettyClient.decodeHeaders(1, responseBlock.duplicate());
    if (headers.status() == null) {
      throw new AssertionError("missing :status");
    }
    return toMetadata(headers);
  }

  /**
   * What a transport on {@code DefaultHttp2Headers} must do to hand metadata to the runtime: copy
   * every regular header out as bytes (pseudo-headers and {@code te} skipped, {@code -bin} values
   * base64-decoded).
   */
  private static Metadata toMetadata(Http2Headers headers) {
    byte[][] namesAndValues = new byte[headers.size() * 2][];
    int count = 0;
    for (Map.Entry<CharSequence, CharSequence> entry : headers) {
      CharSequence name = entry.getKey();
      if (name.length() > 0 && name.charAt(0) == ':' || AsciiString.contentEquals(name, "te")) {
        continue;
      }
      byte[] nameBytes = bytes(name);
      byte[] value = bytes(entry.getValue());
      if (AsciiString.of(name).endsWith("-bin")) {
        value = Base64Codec.decodeBase64(value, 0, value.length);
      }
      namesAndValues[2 * count] = nameBytes;
      namesAndValues[2 * count + 1] = value;
      count++;
    }
    return Metadata.fromSerialized(namesAndValues, count);
  }

  private static byte[] bytes(CharSequence s) {
    if (s instanceof AsciiString ascii) {
      return ascii.toByteArray();
    }
    return s.toString().getBytes(StandardCharsets.US_ASCII);
  }
}
