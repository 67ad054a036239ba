"""Tests of client_only.py, bin/bench-compare's client part, that run no benchmark: nghttpd's
static gRPC answer and its check, and the commands each client runs.

Run: python3 -m unittest discover -s tern-benchmarks/scripts (standard library only).
"""

import argparse
import os
import tempfile
import unittest
import unittest.mock

# Beside this file: on sys.path when run as the docstring says, or as a script.
import bench_compare
import client_only

# What `nghttp -v` printed for one call to nghttpd 1.52 serving client_only's answer (the lines
# received; nghttp prints the answer's bytes before the DATA frame's line).
GOOD_ANSWER = """\
[  0.006] recv SETTINGS frame <length=6, flags=0x00, stream_id=0>
[  0.006] recv (stream_id=13) :status: 200
[  0.006] recv (stream_id=13) server: nghttpd nghttp2/1.52.0
[  0.006] recv (stream_id=13) content-length: 7
[  0.006] recv (stream_id=13) content-type: application/grpc
[  0.006] recv (stream_id=13) trailer: grpc-status
[  0.006] recv HEADERS frame <length=111, flags=0x04, stream_id=13>
          ; END_HEADERS
\x00\x00\x00\x00\x02\n\x00[  0.006] recv DATA frame <length=7, flags=0x00, stream_id=13>
[  0.006] recv (stream_id=13) grpc-status: 0
[  0.006] recv HEADERS frame <length=12, flags=0x05, stream_id=13>
          ; END_STREAM | END_HEADERS
"""


class AnswerCheckTest(unittest.TestCase):
    def test_nghttpds_answer_with_content_type_frame_and_trailer_is_right(self):
        self.assertEqual(client_only.answer_problems(GOOD_ANSWER), [])

    def test_an_answer_without_the_grpc_content_type_is_named(self):
        # nghttpd's answer at a path without an extension (such as .../UnaryCall).
        answer = GOOD_ANSWER.replace("content-type: application/grpc\n", "")
        self.assertEqual(client_only.answer_problems(answer), ["no content-type: application/grpc"])

    def test_an_answer_without_the_trailer_is_named(self):
        answer = GOOD_ANSWER.replace("grpc-status: 0\n", "")
        self.assertEqual(
            client_only.answer_problems(answer),
            ["no trailer grpc-status: 0 ending the stream after the DATA"],
        )

    def test_a_failing_status_or_another_frame_is_named(self):
        answer = (
            GOOD_ANSWER.replace("grpc-status: 0", "grpc-status: 13")
            .replace(":status: 200", ":status: 404")
            .replace("length=7, flags=0x00", "length=5, flags=0x00")
        )
        self.assertEqual(
            client_only.answer_problems(answer),
            [
                "no :status 200",
                "no DATA frame of 7 bytes",
                "no trailer grpc-status: 0 ending the stream after the DATA",
            ],
        )


class FilesAndCommandsTest(unittest.TestCase):
    def setUp(self):
        self.args = argparse.Namespace(duration=10, warmup=35, server_warmup=20)

    def test_the_answer_is_one_grpc_frame_served_as_grpc(self):
        with tempfile.TemporaryDirectory() as work:
            client_only.prepare(work)
            paths = client_only.files(work)
            answer = os.path.join(paths["htdocs"], client_only.STATIC_METHOD)
            with open(answer, "rb") as f:
                frame = f.read()
            with open(paths["mime_types"]) as f:
                mime = f.read().split()
        # Not compressed, then the message's length, then the message.
        self.assertEqual(frame[0], 0)
        self.assertEqual(int.from_bytes(frame[1:5], "big"), len(frame) - 5)
        self.assertEqual(mime, ["application/grpc", "grpc"])
        self.assertTrue(client_only.STATIC_METHOD.endswith(".grpc"))

    def test_nghttpd_is_on_cpu_0_with_the_map_and_the_trailer(self):
        cmd = client_only.nghttpd_cmd(8080, "/w")
        self.assertEqual(cmd[:4], ["taskset", "-c", "0", "nghttpd"])
        self.assertIn("--mime-types-file=/w/client-only/mime.types", cmd)
        self.assertIn("--trailer=grpc-status: 0", cmd)
        self.assertIn("--workers=1", cmd)
        self.assertEqual(cmd[-1], "8080")

    def test_every_client_is_on_cpu_1_with_the_same_connections_and_streams(self):
        h2load = client_only.load_cmd(bench_compare, "h2load", 8080, "req.bin", self.args)
        tern = client_only.load_cmd(bench_compare, "tern", 8080, "req.bin", self.args)
        grpc = client_only.load_cmd(bench_compare, "grpc-java", 8080, "req.bin", self.args)
        for cmd in (h2load, tern, grpc):
            self.assertEqual(cmd[:3], ["taskset", "-c", "1"])
        self.assertEqual(h2load[h2load.index("-c", 3) + 1], "4")
        self.assertEqual(h2load[h2load.index("-m") + 1], "100")
        self.assertIn("--warm-up-time=35", h2load)
        self.assertEqual(h2load[-1], "http://127.0.0.1:8080/" + client_only.STATIC_METHOD)
        self.assertIn("dev.tern.benchmarks.qps.QpsClient", tern)
        self.assertIn("--address=127.0.0.1:8080", tern)
        self.assertIn("dev.tern.benchmarks.qps.GrpcJavaBalancedClient", grpc)
        self.assertIn("--target=ipv4:127.0.0.1:8080", grpc)
        for cmd in (tern, grpc):
            for flag in ("--channels=4", "--outstanding_rpcs=100", "--duration=10"):
                self.assertIn(flag, cmd)
            self.assertIn("--warmup_duration=35", cmd)
            self.assertIn("--unary_method=" + client_only.STATIC_METHOD, cmd)
            self.assertNotIn("--directexecutor", cmd)


class PartTest(unittest.TestCase):
    def test_the_page_shows_each_command_with_port_and_work_for_the_shell(self):
        args = argparse.Namespace(duration=10, warmup=35, server_warmup=20)
        cmds = client_only.commands(bench_compare, args)
        self.assertEqual(list(cmds), ["h2load", "tern", "grpc-java"])
        for server, load in cmds.values():
            self.assertIn("--htdocs=$WORK/client-only/htdocs", server)
            self.assertIn("'--trailer=grpc-status: 0' $PORT", server)
            self.assertIn("127.0.0.1:$PORT", load)
            self.assertNotIn("127.0.0.1:0", load)

    def test_without_nghttpd_the_part_is_recorded_missing_and_starts_nothing(self):
        results = {"commands": {}, "errors": {}}
        args = argparse.Namespace(repeats=1, duration=1, warmup=0, quick=True)
        with (
            unittest.mock.patch("shutil.which", return_value=None),
            unittest.mock.patch.object(
                bench_compare, "start", side_effect=AssertionError("started a process")
            ),
        ):
            client_only.run_client_only(bench_compare, args, "/nonexistent", results)
        self.assertEqual(
            results["client"], {"4 x 100": {"h2load": [], "tern": [], "grpc-java": []}}
        )
        [message] = results["errors"]["client-only"]
        self.assertTrue(message.startswith("missing: "), message)

    def test_skip_client_is_a_known_part(self):
        self.assertIn("client", bench_compare.PART_PREFIXES)


if __name__ == "__main__":
    unittest.main()
