package dev.tern.channelz;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide registry of instrumented objects: root channels, subchannels, servers and
 * sockets, each registered by its owner while it lives (from creation or start until it has
 * terminated). Tools read it through the channelz service.
 *
 * <p>Ids come from {@link #allocateId()}: one sequence for every kind, starting at 1, so an id
 * names one object and is never reused.
 *
 * <p>Thread-safe: concurrent sorted maps, so that listing pages by id needs no lock and
 * registration (once per channel, subchannel, server or connection, never per call) contends with
 * nothing on the call path. Lists are weakly consistent: an object registered or removed while a
 * page is read may or may not be on it.
 */
public final class Channelz {
  private static final Channelz GLOBAL = new Channelz();

  private final AtomicLong ids = new AtomicLong();
  private final ConcurrentSkipListMap<Long, Instrumented<ChannelStats>> rootChannels =
      new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListMap<Long, Instrumented<ChannelStats>> subchannels =
      new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListMap<Long, Instrumented<ServerStats>> servers =
      new ConcurrentSkipListMap<>();
  private final ConcurrentSkipListMap<Long, Instrumented<SocketStats>> sockets =
      new ConcurrentSkipListMap<>();

  private Channelz() {}

  /** The registry of this process. */
  public static Channelz global() {
    return GLOBAL;
  }

  /** A new id, unique in the process: 1, 2, 3... */
  public static long allocateId() {
    return GLOBAL.ids.incrementAndGet();
  }

  /**
   * One page of a listing, in id order.
   *
   * @param items the objects on this page
   * @param end whether there are no more after them
   */
  public record Page<T>(List<T> items, boolean end) {
    /** Copies {@code items}. */
    public Page {
      items = List.copyOf(items);
    }
  }

  /** Registers a channel made by the application (not a subchannel). */
  public void addRootChannel(Instrumented<ChannelStats> channel) {
    add(rootChannels, channel);
  }

  /** Unregisters a channel; does nothing if it is not registered. */
  public void removeRootChannel(Instrumented<ChannelStats> channel) {
    remove(rootChannels, channel);
  }

  /** Registers a subchannel. */
  public void addSubchannel(Instrumented<ChannelStats> subchannel) {
    add(subchannels, subchannel);
  }

  /** Unregisters a subchannel; does nothing if it is not registered. */
  public void removeSubchannel(Instrumented<ChannelStats> subchannel) {
    remove(subchannels, subchannel);
  }

  /** Registers a server. */
  public void addServer(Instrumented<ServerStats> server) {
    add(servers, server);
  }

  /** Unregisters a server; does nothing if it is not registered. */
  public void removeServer(Instrumented<ServerStats> server) {
    remove(servers, server);
  }

  /** Registers a socket: a client or server connection, or a listening socket. */
  public void addSocket(Instrumented<SocketStats> socket) {
    add(sockets, socket);
  }

  /** Unregisters a socket; does nothing if it is not registered. */
  public void removeSocket(Instrumented<SocketStats> socket) {
    remove(sockets, socket);
  }

  /**
   * Root channels with ids at least {@code fromId}, at most {@code maxResults} of them.
   *
   * @throws IllegalArgumentException if {@code maxResults} is not positive
   */
  public Page<Instrumented<ChannelStats>> rootChannels(long fromId, int maxResults) {
    return page(rootChannels, fromId, maxResults);
  }

  /**
   * Servers with ids at least {@code fromId}, at most {@code maxResults} of them.
   *
   * @throws IllegalArgumentException if {@code maxResults} is not positive
   */
  public Page<Instrumented<ServerStats>> servers(long fromId, int maxResults) {
    return page(servers, fromId, maxResults);
  }

  /** The root channel with {@code id}, or null. */
  public Instrumented<ChannelStats> rootChannel(long id) {
    return rootChannels.get(id);
  }

  /** The subchannel with {@code id}, or null. */
  public Instrumented<ChannelStats> subchannel(long id) {
    return subchannels.get(id);
  }

  /** The server with {@code id}, or null. */
  public Instrumented<ServerStats> server(long id) {
    return servers.get(id);
  }

  /** The socket with {@code id}, or null. */
  public Instrumented<SocketStats> socket(long id) {
    return sockets.get(id);
  }

  /** Whether anything with {@code id} is registered (of any kind). */
  public boolean contains(long id) {
    return rootChannels.containsKey(id)
        || subchannels.containsKey(id)
        || servers.containsKey(id)
        || sockets.containsKey(id);
  }

  private static <T> void add(Map<Long, Instrumented<T>> map, Instrumented<T> node) {
    Objects.requireNonNull(node, "node");
    long id = node.channelzId();
    if (id <= 0) {
      throw new IllegalArgumentException("channelz id must be > 0: " + id);
    }
    Instrumented<T> previous = map.putIfAbsent(id, node);
    if (previous != null && previous != node) {
      throw new IllegalStateException("channelz id " + id + " is already registered");
    }
  }

  private static <T> void remove(Map<Long, Instrumented<T>> map, Instrumented<T> node) {
    Objects.requireNonNull(node, "node");
    map.remove(node.channelzId(), node);
  }

  private static <T> Page<T> page(NavigableMap<Long, T> map, long fromId, int maxResults) {
    if (maxResults <= 0) {
      throw new IllegalArgumentException("maxResults must be > 0: " + maxResults);
    }
    List<T> items = new ArrayList<>(Math.min(maxResults, 16));
    for (Map.Entry<Long, T> entry : map.tailMap(fromId, true).entrySet()) {
      if (items.size() == maxResults) {
        return new Page<>(items, false);
      }
      items.add(entry.getValue());
    }
    return new Page<>(items, true);
  }
}
