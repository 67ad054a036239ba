package dev.tern.reliability;

import dev.tern.testtools.Toxiproxy;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The network faults, each put on every proxy at once and taken off again. Toxics act on one
 * direction: downstream is server to client, upstream client to server.
 */
public enum Fault {
  /** 200 ms more on every server-to-client packet, give or take 100 ms. */
  LATENCY("latency", true, attributes("latency", 200L, "jitter", 100L)),
  /** Server to client at 256 KB/s: a 1 MiB answer takes 4 s, past its 3 s deadline. */
  BANDWIDTH("bandwidth", true, attributes("rate", 256L)),
  /** Closing the connection to the client is delayed by 1 s. */
  SLOW_CLOSE("slow_close", true, attributes("delay", 1000L)),
  /** A black hole: nothing the client sends arrives, and the connection stays open. */
  TIMEOUT("timeout", false, attributes("timeout", 0L)),
  /** Every connection is reset (TCP RST) as soon as the client sends. */
  RESET_PEER("reset_peer", false, attributes("timeout", 0L)),
  /** Server to client in TCP segments of 4 to 12 bytes, 10 µs apart. */
  SLICER("slicer", true, attributes("average_size", 8L, "size_variation", 4L, "delay", 10L)),
  /** A connection is closed after 64 KiB from the server. */
  LIMIT_DATA("limit_data", true, attributes("bytes", 65536L)),
  /** The proxy is switched off (connections closed, new ones refused), then on again. */
  PROXY_DISABLED(null, false, attributes());

  private static final String TOXIC = "chaos";

  private final String type;
  private final boolean downstream;
  private final Map<String, Long> attributes;

  Fault(String type, boolean downstream, Map<String, Long> attributes) {
    this.type = type;
    this.downstream = downstream;
    this.attributes = attributes;
  }

  /** Name, value, name, value, ... in this order (for the report's labels). */
  private static Map<String, Long> attributes(Object... namesAndValues) {
    Map<String, Long> attributes = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      attributes.put((String) namesAndValues[i], (Long) namesAndValues[i + 1]);
    }
    return attributes;
  }

  /** What the report calls this fault. */
  public String label() {
    if (type == null) {
      return "proxy disabled, then enabled";
    }
    StringBuilder label = new StringBuilder(type).append(downstream ? " (down" : " (up");
    attributes.forEach((k, v) -> label.append(", ").append(k).append('=').append(v));
    return label.append(')').toString();
  }

  /** Puts the fault on each of {@code proxies}. */
  public void apply(Toxiproxy toxiproxy, List<String> proxies) throws IOException {
    for (String proxy : proxies) {
      if (type == null) {
        toxiproxy.setEnabled(proxy, false);
      } else {
        toxiproxy.addToxic(proxy, TOXIC, type, downstream, attributes);
      }
    }
  }

  /** Takes the fault off each of {@code proxies}. */
  public void clear(Toxiproxy toxiproxy, List<String> proxies) throws IOException {
    for (String proxy : proxies) {
      if (type == null) {
        toxiproxy.setEnabled(proxy, true);
      } else {
        toxiproxy.removeToxic(proxy, TOXIC);
      }
    }
  }
}
