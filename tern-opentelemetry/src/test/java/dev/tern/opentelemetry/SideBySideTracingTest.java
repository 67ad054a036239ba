package dev.tern.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tern.testing.TernCleanupExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * gRFC A72 side by side: the calls of {@link SideBySideMetricsTest}, made with grpc-java and its
 * module and with Tern and this one, must give the same spans: names, parents, statuses (with their
 * descriptions), attributes, and message events in order with their attributes. Where the two
 * legitimately differ (span kinds, scopes, gzip's output, the delayed-resolution and delayed-pick
 * events grpc-java adds to a channel's first call) that is asserted as it is.
 */
class SideBySideTracingTest {
  @RegisterExtension final TernCleanupExtension cleanup = new TernCleanupExtension();

  private static final AttributeKey<Long> COMPRESSED =
      AttributeKey.longKey("message-size-compressed");
  private static final AttributeKey<Long> MESSAGE_SIZE = AttributeKey.longKey("message-size");

  /** The events grpc-java adds when a call waited for name resolution or a pick; Tern has none. */
  private static final List<String> DELAY_EVENTS =
      List.of("Delayed name resolution complete", "Delayed LB pick complete");

  private static final List<String> SPAN_NAMES =
      List.of(Peer.UNARY, Peer.FAIL, Peer.STREAM, Peer.MISSING, Peer.GZIP, Peer.GZIP_REPLY).stream()
          .flatMap(m -> List.of("Sent.", "Attempt.", "Recv.").stream().map(p -> p + "sbs.Svc." + m))
          .toList();

  private List<SpanData> grpcJava() throws Exception {
    try (Peer.Sdk sdk = new Peer.Sdk();
        Peer.Server server = GrpcJavaPeer.server(sdk.sdk);
        Peer.Client client = GrpcJavaPeer.client(sdk.sdk, server.port())) {
      Peer.makeCalls(client);
      return spans(sdk, server);
    }
  }

  private List<SpanData> tern() throws Exception {
    try (Peer.Sdk sdk = new Peer.Sdk();
        Peer.Server server = TernPeer.server(cleanup, sdk.sdk);
        Peer.Client client = TernPeer.client(cleanup, sdk.sdk, server.port())) {
      Peer.makeCalls(client);
      return spans(sdk, server);
    }
  }

  private static List<SpanData> spans(Peer.Sdk sdk, Peer.Server server) throws Exception {
    server.awaitClosedStreams(Peer.CALLS);
    for (String name : SPAN_NAMES) {
      sdk.spans.await(name);
    }
    return sdk.spans.all();
  }

  @Test
  void ternMakesTheSpansGrpcJavaMakesForTheSameCalls() throws Exception {
    List<SpanData> grpc = grpcJava();
    List<SpanData> tern = tern();

    Peer.assertSameLines("spans", describe(grpc), describe(tern));

    // Documented differences, asserted as such.
    // 1. Span kinds: grpc-java makes every span INTERNAL; Tern's attempt spans are CLIENT and its
    // server spans SERVER (OpenTelemetry's RPC conventions), its call spans INTERNAL.
    assertThat(grpc).allSatisfy(s -> assertThat(s.getKind()).isEqualTo(SpanKind.INTERNAL));
    assertThat(tern)
        .allSatisfy(s -> assertThat(s.getKind()).as(s.getName()).isEqualTo(ternKind(s.getName())));
    // 2. Each library names its own instrumentation scope.
    assertThat(grpc).allSatisfy(s -> assertThat(scope(s)).isEqualTo("grpc-java"));
    assertThat(tern)
        .allSatisfy(s -> assertThat(scope(s)).isEqualTo(GrpcOpenTelemetry.INSTRUMENTATION_SCOPE));
    // 3. Only grpc-java reports that a call waited for name resolution or for a pick.
    assertThat(grpc.stream().flatMap(s -> s.getEvents().stream()).map(EventData::getName))
        .filteredOn(name -> name.startsWith("Delayed"))
        .allSatisfy(name -> assertThat(name).isIn(DELAY_EVENTS));
    assertThat(tern.stream().flatMap(s -> s.getEvents().stream()).map(EventData::getName))
        .noneMatch(name -> name.startsWith("Delayed"));
    // 4. gzip's output is each library's compressor's business: left out above; each side must
    // tell the same compressed size at both ends.
    for (List<SpanData> side : List.of(grpc, tern)) {
      Map<String, SpanData> byName =
          side.stream().collect(Collectors.toMap(SpanData::getName, Function.identity()));
      assertThat(compressed(byName.get("Attempt.sbs.Svc.Gzip"), "Outbound message"))
          .isPositive()
          .isLessThan(1000)
          .isEqualTo(compressed(byName.get("Recv.sbs.Svc.Gzip"), "Inbound compressed message"));
      assertThat(compressed(byName.get("Recv.sbs.Svc.GzipReply"), "Outbound message"))
          .isPositive()
          .isLessThan(Peer.UNARY_RESPONSE_SIZE)
          .isEqualTo(
              compressed(byName.get("Attempt.sbs.Svc.GzipReply"), "Inbound compressed message"));
    }
    // 5. A compressed message's "Inbound message" event: grpc-java gives its uncompressed size,
    // Tern only its sequence number (left out above): tern-core's stream tracers do not report the
    // uncompressed size of a message that arrived compressed, so this module never learns it.
    assertThat(inboundSizes(grpc)).containsExactly(1000L, (long) Peer.UNARY_RESPONSE_SIZE);
    assertThat(inboundSizes(tern)).containsExactly(null, null);
  }

  /** The sizes in the "Inbound message" events of the two messages that arrived compressed. */
  private static List<Long> inboundSizes(List<SpanData> spans) {
    List<Long> sizes = new ArrayList<>();
    for (String name : List.of("Recv.sbs.Svc.Gzip", "Sent.sbs.Svc.GzipReply")) {
      SpanData span =
          spans.stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
      EventData event =
          span.getEvents().stream()
              .filter(e -> e.getName().equals("Inbound message"))
              .findFirst()
              .orElseThrow(() -> new AssertionError(name + " has no Inbound message event"));
      sizes.add(event.getAttributes().get(MESSAGE_SIZE));
    }
    return sizes;
  }

  private static SpanKind ternKind(String name) {
    if (name.startsWith("Attempt.")) {
      return SpanKind.CLIENT;
    }
    return name.startsWith("Recv.") ? SpanKind.SERVER : SpanKind.INTERNAL;
  }

  private static String scope(SpanData span) {
    return span.getInstrumentationScopeInfo().getName();
  }

  private static long compressed(SpanData span, String event) {
    return span.getEvents().stream()
        .filter(e -> e.getName().equals(event))
        .map(e -> e.getAttributes().get(COMPRESSED))
        .findFirst()
        .orElseThrow(() -> new AssertionError(span.getName() + " has no " + event + " event"));
  }

  /** One line per span: what must be equal. */
  private static List<String> describe(List<SpanData> spans) {
    Map<String, String> names =
        spans.stream().collect(Collectors.toMap(SpanData::getSpanId, SpanData::getName));
    List<String> lines = new ArrayList<>();
    for (SpanData span : spans) {
      String parent =
          span.getParentSpanContext().isValid()
              ? names.getOrDefault(span.getParentSpanId(), "?")
              : "-";
      List<String> events = new ArrayList<>();
      for (EventData event : span.getEvents()) {
        if (DELAY_EVENTS.contains(event.getName())) {
          continue;
        }
        Attributes attributes = event.getAttributes();
        if (event.getName().equals("Inbound message") && arrivedCompressed(span.getName())) {
          attributes = attributes.toBuilder().remove(MESSAGE_SIZE).build();
        }
        events.add(event.getName() + attributes(attributes, span.getName()));
      }
      lines.add(
          span.getName()
              + " parent="
              + parent
              + " status="
              + span.getStatus().getStatusCode()
              + " \""
              + span.getStatus().getDescription()
              + "\" attributes="
              + attributes(span.getAttributes(), span.getName())
              + " events="
              + events);
    }
    lines.sort(null);
    return lines;
  }

  /** Whether the span's inbound message arrived compressed. */
  private static boolean arrivedCompressed(String spanName) {
    return spanName.equals("Recv.sbs.Svc.Gzip") || spanName.equals("Sent.sbs.Svc.GzipReply");
  }

  private static String attributes(Attributes attributes, String spanName) {
    Map<String, String> sorted = new TreeMap<>();
    attributes.forEach(
        (key, value) -> {
          String text =
              key.equals(COMPRESSED) && spanName.endsWith(".Gzip") ? "(gzip)" : "" + value;
          sorted.put(key.getKey() + "(" + key.getType() + ")", text);
        });
    return sorted.toString();
  }
}
