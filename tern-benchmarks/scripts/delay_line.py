"""A delay line between two TUN devices, for bin/h3-loss on kernels without netem.

Creates two TUN devices (IFF_TUN | IFF_NO_PI) with the names given, prints "ready" once both
exist (bin/h3-loss then moves each into its network namespace and gives it an address), and from
then on writes every IP packet read from one device to the other DELAY_MS/2 milliseconds later,
in order: a wire whose round trip takes DELAY_MS. It drops nothing (bin/h3-loss drops packets with
nftables). Runs until killed; the devices go with it.

  python3 delay_line.py DEVICE_A DEVICE_B DELAY_MS
"""

import fcntl
import heapq
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def run(name_a, name_b, delay_ms):
    a = open_tun(name_a)
    b = open_tun(name_b)
    peer = {a: b, b: a}
    one_way = delay_ms / 2000.0
    queue = []  # (due, sequence, fd to write, packet): FIFO, since every packet waits as long
    sequence = 0
    print("ready", flush=True)
    while True:
        timeout = None
        if queue:
            timeout = max(0.0, queue[0][0] - time.monotonic())
        readable, _, _ = select.select([a, b], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                heapq.heappush(queue, (now + one_way, sequence, peer[fd], packet))
                sequence += 1
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, fd, packet = heapq.heappop(queue)
            try:
                os.write(fd, packet)
            except OSError:
                pass  # the device is down or full: the packet is lost, as on a wire


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: delay_line.py DEVICE_A DEVICE_B DELAY_MS")
    run(sys.argv[1], sys.argv[2], float(sys.argv[3]))


if __name__ == "__main__":
    main()
