"""Test of delay_line.py (bin/h3-loss's wire): two network namespaces joined by its TUN devices,
a UDP echo across them. Needs root and the TUN driver; skipped without them, and failed for it
when CI=true.

Run: python3 -m unittest discover -s tern-benchmarks/scripts
"""

import os
import subprocess
import sys
import unittest

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
ECHO = """
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.213.9.1", 0))
print(s.getsockname()[1], flush=True)
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)
"""


def can_run():
    return os.geteuid() == 0 and os.path.exists("/dev/net/tun")


class DelayLineTest(unittest.TestCase):
    def setUp(self):
        if not can_run():
            if os.environ.get("CI") == "true":
                self.fail("needs root and /dev/net/tun, which CI has")
            self.skipTest("needs root and /dev/net/tun")
        tag = str(os.getpid())
        self.namespaces = ["tern-dl-a-" + tag, "tern-dl-b-" + tag]
        self.processes = []
        self.addCleanup(self.clean_up)
        devices = ["tdla" + tag, "tdlb" + tag]
        line = self.start([sys.executable, os.path.join(SCRIPTS, "delay_line.py"), *devices, "40"])
        self.assertEqual(line.stdout.readline().strip(), "ready")
        addresses = ["10.213.9.1", "10.213.9.2"]
        for i in range(2):
            ns, dev = self.namespaces[i], devices[i]
            subprocess.run(["ip", "netns", "add", ns], check=True)
            subprocess.run(["ip", "link", "set", dev, "netns", ns], check=True)
            address = ["ip", "-n", ns, "addr", "add", addresses[i] + "/32", "dev", dev]
            subprocess.run(address, check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", dev, "up"], check=True)
            route = ["ip", "-n", ns, "route", "add", addresses[1 - i] + "/32", "dev", dev]
            subprocess.run(route, check=True)

    def start(self, command):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.processes.append(process)
        return process

    def clean_up(self):
        for process in self.processes:
            process.kill()
            process.wait()
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)

    def test_packets_cross_in_order_a_round_trip_later(self):
        echo = self.start(["ip", "netns", "exec", self.namespaces[0], sys.executable, "-c", ECHO])
        port = int(echo.stdout.readline())
        client = self.start(
            ["ip", "netns", "exec", self.namespaces[1], sys.executable, "-c", CLIENT % (port, port)]
        )
        out, _ = client.communicate(timeout=30)
        self.assertEqual(client.returncode, 0, out)
        rtt, order = out.split()
        # 40 ms each round trip at least (the line may be later on a busy machine, never sooner).
        self.assertGreaterEqual(float(rtt), 0.040)
        self.assertEqual(order, ",".join(str(i) for i in range(20)))


CLIENT = """
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(10)
start = time.monotonic()
s.sendto(b"first", ("10.213.9.1", %d))
s.recvfrom(2048)
rtt = time.monotonic() - start
for i in range(20):
    s.sendto(str(i).encode(), ("10.213.9.1", %d))
order = [s.recvfrom(2048)[0].decode() for _ in range(20)]
print(rtt, ",".join(order))
"""


if __name__ == "__main__":
    unittest.main()
