/**
 * The machinery of tern-web's protocols: gRPC-Web and Connect as {@link
 * dev.tern.netty.http.HttpServerProtocol}s on tern-netty's HTTP exchange seam, each call a {@link
 * dev.tern.spi.ServerStream} handed to the same runtime gRPC calls reach. Not API: may change at
 * any time.
 *
 * <pre>
 *  tern-netty: a request gRPC does not take --&gt; protocol.handles(head) --&gt; protocol.serve(exchange)
 *    GrpcWebProtocol  (POST application/grpc-web[-text][+proto|+json])
 *    ConnectProtocol  (POST application/proto|json, GET ?encoding=..&amp;message=..,
 *                      POST application/connect+proto|+json)
 *      a CORS preflight, or a request refused before it became a call (both: a bad binary
 *      header, JSON for a method without a schema; Connect: an unknown method, the wrong kind of
 *      method, a bad version, timeout or query): answered at once --&gt; HttpBodyListener.discarding
 *      otherwise: metadata from WebHeaders, the protocol's headers turned into gRPC's
 *        (connect-timeout-ms --&gt; grpc-timeout, ...), JsonCodec for +json
 *        --&gt; GrpcWebStream | ConnectUnaryStream | ConnectStreamingStream
 *        --&gt; exchange.calls().streamCreated(stream, method, metadata): the runtime's call
 *  request body (HttpBodyListener) --&gt; the stream: base64 decoded (Base64Body, grpc-web-text),
 *    gathered whole (Connect unary) --&gt; MessageDeframer --&gt; JSON to binary --&gt; the call
 *  responses from the call: serialized, JSON, compressed on the application's thread
 *    --&gt; the stream's hooks on the event loop --&gt; Envelopes / headers / ConnectErrors JSON
 *    --&gt; exchange.writeHead, writeBody, with Cors's headers
 * </pre>
 *
 * <p>The rooms:
 *
 * <ul>
 *   <li>The protocols: {@link dev.tern.web.internal.GrpcWebProtocol} and {@link
 *       dev.tern.web.internal.ConnectProtocol} decide which requests are theirs, validate them,
 *       answer what fails before a call exists, and start the call. Both are listed in {@code
 *       META-INF/services} for a server that names no protocols; {@link
 *       dev.tern.web.internal.Protocols} builds them for {@link dev.tern.web.WebProtocols}.
 *   <li>The calls: {@code WebServerStream}, what every protocol's stream shares (the deframer, the
 *       request count a unary method allows, flow control both ways, hops to the event loop,
 *       closing), and its subclasses, which only decide the bytes: {@code GrpcWebStream}
 *       (envelopes, trailers as a last envelope or Trailers-Only, base64 in text mode), {@code
 *       ConnectUnaryStream} (one message; the response is held until the call ends, since its
 *       trailers go out as headers), {@code ConnectStreamingStream} (envelopes and the
 *       end-of-stream JSON).
 *   <li>The formats: {@code Envelopes} (the 5-byte prefix and each protocol's flags), {@code
 *       Base64Body}, {@code WebHeaders} (header fields and {@link dev.tern.Metadata} both ways),
 *       {@code ConnectGetQuery} (a GET's query), {@code ConnectErrors} (Connect's codes, HTTP
 *       statuses and error JSON), {@code JsonCodec} (the proto3 JSON mapping for one method, behind
 *       {@code MessageTransform}), {@code Cors} (preflights and response headers); the body of a
 *       request answered at once goes to tern-netty's {@code HttpBodyListener.discarding}.
 * </ul>
 *
 * <p>Threads: the protocols, {@code Cors} and the stateless formats are shared by every connection
 * of a server and are thread-safe; a {@code JsonCodec} is immutable (one per call, its type
 * registry built once per proto file and shared). A call's stream and {@code Base64Body} belong to
 * one exchange: the body listener, the deframer's callbacks and the protocol's hooks run on the
 * connection's event loop only; the runtime calls the {@link dev.tern.spi.ServerStream} methods
 * from one thread at a time (and {@code cancel} from a timer), and those that touch the exchange or
 * the deframer hop onto the event loop unless already there. A response message is serialized,
 * converted to JSON and compressed on the calling thread before the hop.
 *
 * <p>Uses tern-core's API, SPI and wire helpers ({@code dev.tern.internal.wire}: the deframer, the
 * gRPC header names and codecs), tern-netty's exchange seam ({@code dev.tern.netty.http}) and its
 * {@code NettyReadableBuffer}, Netty's buffers and HTTP header types, tern-protobuf's method
 * schemas and protobuf-java-util's {@code JsonFormat}; nothing of tern-netty's server or client.
 */
package dev.tern.web.internal;
