/*
 * raw-echo: the machine's own limit for the figures bin/bench-compare calls wake-up-bound
 * (streaming ping-pong and new connections per second) and for the large-message rows (a
 * socket's bandwidth): blocking TCP over loopback with the thread topology of those rows, one
 * client thread and one server thread, and no protocol at all.
 *
 *   raw-echo server      --address=127.0.0.1:PORT [--discard]
 *   raw-echo pingpong    --address=HOST:PORT --client_payload=N --server_payload=N
 *                        --warmup_duration=S --duration=S [--channels=1] [--outstanding_rpcs=1]
 *                        [--streaming_rpcs]
 *   raw-echo connections --address=HOST:PORT --new_connections=N --warmup_connections=W
 *                        [--source_addresses=K]
 *   raw-echo bandwidth   --address=HOST:PORT --client_payload=N --warmup_duration=S --duration=S
 *
 * The clients take the flags of the qps clients and of ConnectionsClient (those that mean
 * something here) and print the same summary blocks, so the driver runs and reads all of them
 * alike.
 *
 * server: one thread; accepts a connection, then writes back whatever it reads until the client
 * closes, then accepts the next. Port 0 takes one the system picks; it prints
 * "raw echo server listening on HOST:PORT" once it listens, and runs until it is killed. With
 * --discard it writes nothing back: it reads and drops what it reads, and closes the connection
 * once the client has closed its side (the bandwidth client waits for that).
 * pingpong: one connection; sends N bytes and reads the N back, again and again: for S seconds
 * unmeasured, then for S seconds timed. QPS is round trips per second. N is at least 1 (a round
 * trip of 0 bytes is not one) and the same both ways; one channel with one call outstanding is the
 * only shape, and --streaming_rpcs changes nothing (a connection is a stream already).
 * connections: W and then N timed connections one after another, each a connect, one round trip
 * of 1 byte and a close. Latency runs from making the socket to the end of the round trip; the
 * rate also counts the closing, as ConnectionsClient's does. With K, each connection's client end
 * is bound first to 127.0.0.2, 127.0.0.3, ... 127.0.0.(K+1) in turn, so that the closed
 * connections' TIME_WAIT ports spread over K addresses.
 * bandwidth: one connection to a --discard server; writes N bytes at a time, again and again: for
 * S seconds unmeasured, then for S seconds timed. The timed bytes are those written from the start
 * of the timed window on, and the window ends when the server has read the last of them (the
 * client closes its side and waits for the server's close), so bytes still in the socket buffers
 * count only once they arrived. That leaves out the bytes in the buffers when the window opened:
 * the figure errs low, by a buffer's worth.
 *
 * TCP_NODELAY is set on every socket, as every gRPC stack sets it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NANOS_PER_SECOND 1000000000LL

/* The bytes the server reads at most at once. */
#define SERVER_BUFFER 65536

struct flags {
  struct sockaddr_in address;
  long client_payload, server_payload, channels, outstanding_rpcs;
  long warmup_duration, duration;
  long new_connections, warmup_connections, source_addresses;
  int discard;
};

_Noreturn static void die(const char *what) {
  fprintf(stderr, "raw-echo: %s: %s\n", what, strerror(errno));
  exit(1);
}

_Noreturn static void usage(const char *problem) {
  fprintf(stderr,
          "raw-echo: %s\n"
          "usage: raw-echo server --address=127.0.0.1:PORT [--discard]\n"
          "       raw-echo pingpong --address=HOST:PORT --client_payload=N --server_payload=N "
          "--warmup_duration=S --duration=S [--channels=1] [--outstanding_rpcs=1] "
          "[--streaming_rpcs]\n"
          "       raw-echo connections --address=HOST:PORT --new_connections=N "
          "--warmup_connections=W [--source_addresses=K]\n"
          "       raw-echo bandwidth --address=HOST:PORT --client_payload=N "
          "--warmup_duration=S --duration=S\n",
          problem);
  exit(2);
}

static long long now_nanos(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * NANOS_PER_SECOND + ts.tv_nsec;
}

static int parse_address(const char *text, struct sockaddr_in *out) {
  char host[64];
  const char *colon = strrchr(text, ':');
  if (colon == NULL || (size_t)(colon - text) >= sizeof host) {
    return -1;
  }
  memcpy(host, text, colon - text);
  host[colon - text] = '\0';
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535) {
    return -1;
  }
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  out->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, host, &out->sin_addr) == 1 ? 0 : -1;
}

/* A flag's value as a count of at least `min`; exits naming the flag otherwise. */
static long parse_count(const char *flag, const char *value, long min) {
  char *end;
  errno = 0;
  long n = strtol(value, &end, 10);
  if (errno != 0 || *value == '\0' || *end != '\0' || n < min) {
    static char problem[160];
    snprintf(problem, sizeof problem, "%s=%s: not a number of at least %ld", flag, value, min);
    usage(problem);
  }
  return n;
}

static struct flags parse_flags(int argc, char **argv) {
  struct flags f = {.channels = 1, .outstanding_rpcs = 1};
  const struct {
    const char *name;
    long *field;
    long min;
  } counts[] = {
      {"--client_payload", &f.client_payload, 1},
      {"--server_payload", &f.server_payload, 1},
      {"--channels", &f.channels, 1},
      {"--outstanding_rpcs", &f.outstanding_rpcs, 1},
      {"--warmup_duration", &f.warmup_duration, 0},
      {"--duration", &f.duration, 1},
      {"--new_connections", &f.new_connections, 1},
      {"--warmup_connections", &f.warmup_connections, 0},
      {"--source_addresses", &f.source_addresses, 0},
  };
  int have_address = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--streaming_rpcs") == 0) {
      continue;
    }
    if (strcmp(argv[i], "--discard") == 0) {
      f.discard = 1;
      continue;
    }
    char *eq = strchr(argv[i], '=');
    if (eq == NULL) {
      usage("every flag but --streaming_rpcs and --discard is --name=value");
    }
    *eq = '\0';
    const char *name = argv[i], *value = eq + 1;
    if (strcmp(name, "--address") == 0) {
      if (parse_address(value, &f.address) != 0) {
        usage("--address is not an IPv4 HOST:PORT");
      }
      have_address = 1;
      continue;
    }
    size_t known = 0;
    while (known < sizeof counts / sizeof counts[0] && strcmp(name, counts[known].name) != 0) {
      known++;
    }
    if (known < sizeof counts / sizeof counts[0]) {
      *counts[known].field = parse_count(name, value, counts[known].min);
      continue;
    }
    static char problem[160];
    snprintf(problem, sizeof problem, "unknown flag %s", name);
    usage(problem);
  }
  if (!have_address) {
    usage("--address is needed");
  }
  return f;
}

static void no_delay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    die("TCP_NODELAY");
  }
}

/* Reads exactly n bytes; returns 0, or -1 at end of stream or on an error (errno says which). */
static int read_fully(int fd, char *buf, long n) {
  while (n > 0) {
    ssize_t got = read(fd, buf, (size_t)n);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got == 0) {
        errno = 0;
      }
      return -1;
    }
    buf += got;
    n -= got;
  }
  return 0;
}

static int write_fully(int fd, const char *buf, long n) {
  while (n > 0) {
    ssize_t put = write(fd, buf, (size_t)n);
    if (put < 0) {
      if (errno == EINTR) {
        continue;
      }
      return -1;
    }
    buf += put;
    n -= put;
  }
  return 0;
}

static char *zeroed(long size) {
  char *buf = calloc(1, (size_t)size);
  if (buf == NULL) {
    die("calloc");
  }
  return buf;
}

_Noreturn static void serve(const struct flags *f) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) {
    die("socket");
  }
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(listener, (const struct sockaddr *)&f->address, sizeof f->address) != 0) {
    die("bind");
  }
  if (listen(listener, 1024) != 0) {
    die("listen");
  }
  struct sockaddr_in bound;
  socklen_t length = sizeof bound;
  getsockname(listener, (struct sockaddr *)&bound, &length);
  char host[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &bound.sin_addr, host, sizeof host);
  printf("raw echo server listening on %s:%d\n", host, ntohs(bound.sin_port));
  fflush(stdout);
  char *buf = zeroed(SERVER_BUFFER);
  for (;;) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) {
        continue;
      }
      die("accept");
    }
    no_delay(fd);
    /* One connection at a time: a client that closes (or resets) ends it. */
    for (;;) {
      ssize_t got = read(fd, buf, SERVER_BUFFER);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got <= 0 || (!f->discard && write_fully(fd, buf, got) != 0)) {
        break;
      }
    }
    close(fd);
  }
}

static int connect_to(const struct flags *f, long source) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    die("socket");
  }
  if (source > 0) {
    struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = 0};
    local.sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)source); /* 127.0.0.(1 + source) */
    if (bind(fd, (const struct sockaddr *)&local, sizeof local) != 0) {
      die("bind to a source address");
    }
  }
  if (connect(fd, (const struct sockaddr *)&f->address, sizeof f->address) != 0) {
    die("connect");
  }
  no_delay(fd);
  return fd;
}

static void round_trip(int fd, char *buf, long size) {
  if (write_fully(fd, buf, size) != 0) {
    die("write");
  }
  if (read_fully(fd, buf, size) != 0) {
    if (errno == 0) {
      fprintf(stderr, "raw-echo: the server closed the connection\n");
      exit(1);
    }
    die("read");
  }
}

/* Latencies of timed operations, nanoseconds, in a growing array. */
struct latencies {
  long long *values;
  size_t count, capacity;
};

static void record(struct latencies *l, long long nanos) {
  if (l->count == l->capacity) {
    l->capacity = l->capacity ? 2 * l->capacity : 1 << 16;
    l->values = realloc(l->values, l->capacity * sizeof *l->values);
    if (l->values == NULL) {
      die("realloc");
    }
  }
  l->values[l->count++] = nanos;
}

static int by_value(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* The value at percentile p (0 < p <= 100) of sorted latencies, in microseconds. */
static long long micros_at(const struct latencies *l, double p) {
  double exact = p / 100.0 * (double)l->count;
  size_t rank = (size_t)exact;
  if ((double)rank < exact) {
    rank++; /* the nearest rank: the smallest value with at least p% of all at or below it */
  }
  if (rank < 1) {
    rank = 1;
  }
  if (rank > l->count) {
    rank = l->count;
  }
  return l->values[rank - 1] / 1000;
}

static int ping_pong(const struct flags *f) {
  if (f->duration < 1 || f->client_payload < 1) {
    usage("pingpong needs --duration and --client_payload");
  }
  if (f->server_payload != f->client_payload || f->channels != 1 || f->outstanding_rpcs != 1) {
    usage("pingpong echoes: --server_payload equals --client_payload, one channel, one call");
  }
  long size = f->client_payload;
  int fd = connect_to(f, 0);
  char *buf = zeroed(size);
  struct latencies l = {0};
  long long start = now_nanos();
  long long measured = start + f->warmup_duration * NANOS_PER_SECOND;
  long long end = measured + f->duration * NANOS_PER_SECOND;
  long long before = start;
  while (before < end) {
    round_trip(fd, buf, size);
    long long after = now_nanos();
    if (before >= measured) {
      record(&l, after - before);
    }
    before = after;
  }
  close(fd);
  if (l.count == 0) {
    fprintf(stderr, "raw-echo: no round trip ended in the measured window\n");
    return 1;
  }
  qsort(l.values, l.count, sizeof *l.values, by_value);
  double seconds = (double)(before - measured) / NANOS_PER_SECOND;
  printf("Channels:                       1\n");
  printf("Outstanding RPCs per Channel:   1\n");
  printf("Server Payload Size:            %ld\n", size);
  printf("Client Payload Size:            %ld\n", size);
  printf("50%%ile Latency (in micros):     %lld\n", micros_at(&l, 50));
  printf("90%%ile Latency (in micros):     %lld\n", micros_at(&l, 90));
  printf("95%%ile Latency (in micros):     %lld\n", micros_at(&l, 95));
  printf("99%%ile Latency (in micros):     %lld\n", micros_at(&l, 99));
  printf("99.9%%ile Latency (in micros):   %lld\n", micros_at(&l, 99.9));
  printf("Maximum Latency (in micros):    %lld\n", micros_at(&l, 100));
  printf("QPS:                            %.0f\n", (double)l.count / seconds);
  return 0;
}

static int new_connections(const struct flags *f) {
  if (f->new_connections < 1) {
    usage("connections needs --new_connections");
  }
  char buf[1] = {0};
  struct latencies l = {0};
  long long start = 0;
  for (long i = 0; i < f->warmup_connections + f->new_connections; i++) {
    long source = f->source_addresses > 0 ? 1 + i % f->source_addresses : 0;
    long long before = now_nanos();
    if (i == f->warmup_connections) {
      start = before;
    }
    int fd = connect_to(f, source);
    round_trip(fd, buf, sizeof buf);
    long long after = now_nanos();
    close(fd);
    if (i >= f->warmup_connections) {
      record(&l, after - before);
    }
  }
  double seconds = (double)(now_nanos() - start) / NANOS_PER_SECOND;
  qsort(l.values, l.count, sizeof *l.values, by_value);
  printf("New connections:                %ld\n", f->new_connections);
  printf("Warm-up connections:            %ld\n", f->warmup_connections);
  printf("50%%ile Latency (in micros):     %lld\n", micros_at(&l, 50));
  printf("90%%ile Latency (in micros):     %lld\n", micros_at(&l, 90));
  printf("99%%ile Latency (in micros):     %lld\n", micros_at(&l, 99));
  printf("Maximum Latency (in micros):    %lld\n", micros_at(&l, 100));
  printf("Connections per second:         %.0f\n", (double)f->new_connections / seconds);
  return 0;
}

static int bandwidth(const struct flags *f) {
  if (f->duration < 1 || f->client_payload < 1) {
    usage("bandwidth needs --duration and --client_payload");
  }
  long size = f->client_payload;
  int fd = connect_to(f, 0);
  char *buf = zeroed(size);
  long long start = now_nanos();
  long long measured = start + f->warmup_duration * NANOS_PER_SECOND;
  long long end = measured + f->duration * NANOS_PER_SECOND;
  long long timed_bytes = 0;
  for (long long now = start; now < end; now = now_nanos()) {
    if (write_fully(fd, buf, size) != 0) {
      die("write");
    }
    if (now >= measured) {
      timed_bytes += size;
    }
  }
  /* The window ends when the server has read everything: it closes once it reads the end. */
  if (shutdown(fd, SHUT_WR) != 0) {
    die("shutdown");
  }
  char rest[1];
  ssize_t got;
  while ((got = read(fd, rest, sizeof rest)) < 0 && errno == EINTR) {
  }
  if (got != 0) {
    fprintf(stderr, "raw-echo: the server did not close the connection (is it --discard?)\n");
    return 1;
  }
  long long done = now_nanos();
  close(fd);
  double seconds = (double)(done - measured) / NANOS_PER_SECOND;
  printf("Client Payload Size:            %ld\n", size);
  printf("Bytes timed:                    %lld\n", timed_bytes);
  printf("Bytes per second:               %.0f\n", (double)timed_bytes / seconds);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage("no mode given");
  }
  struct flags f = parse_flags(argc, argv);
  if (strcmp(argv[1], "server") == 0) {
    serve(&f);
  }
  if (strcmp(argv[1], "pingpong") == 0) {
    return ping_pong(&f);
  }
  if (strcmp(argv[1], "connections") == 0) {
    return new_connections(&f);
  }
  if (strcmp(argv[1], "bandwidth") == 0) {
    return bandwidth(&f);
  }
  usage("the mode is server, pingpong, connections or bandwidth");
}
