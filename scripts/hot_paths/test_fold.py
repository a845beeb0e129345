"""Tests of fold.py on hand-made folded stacks (run by scripts/test)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import fold  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class FoldTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def test_merge_sums_the_same_stack_across_runs(self):
        a, b = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        write(a, "p;main;parse 30\np;main;write 10\n")
        write(b, "p;main;parse 20\n")
        out = subprocess.run([sys.executable, os.path.join(HERE, "fold.py"), "merge", a, b],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "p;main;parse 50\np;main;write 10\n")

    def test_shares_count_a_recursive_frame_once_and_leave_out_the_root(self):
        stacks = {"p;main;f;f;g": 60, "p;main;[unknown];h": 40}
        total, inclusive, leaf = fold.shares(stacks)
        self.assertEqual(total, 100)
        self.assertEqual(inclusive["f"], 60)
        self.assertEqual(inclusive["main"], 100)
        self.assertNotIn("p", inclusive)
        self.assertNotIn("[unknown]", inclusive)
        self.assertEqual((leaf["g"], leaf["h"]), (60, 40))

    def test_a_line_that_is_not_folded_is_named(self):
        p = os.path.join(self.dir, "bad")
        write(p, "p;main 12\nthis is not folded\n")
        with self.assertRaises(SystemExit) as e:
            fold.read_folded(p)
        self.assertIn("not a folded line", str(e.exception))

    def test_verdicts_at_their_edges(self):
        d = os.path.join(self.dir, "s")
        os.mkdir(d)
        write(os.path.join(d, "s.folded"), "p;main;parse 30\np;main;write 70\n")
        scenarios = {"s": {"_folded": os.path.join(d, "s.folded")}}
        h = {"id": "H", "scenario": "s", "claim": "c", "frames": "parse"}
        self.assertEqual(fold.verdict({**h, "supported_at": 0.3}, scenarios)["verdict"], "supported")
        self.assertEqual(fold.verdict({**h, "supported_at": 0.6}, scenarios)["verdict"], "inconclusive")
        self.assertEqual(fold.verdict({**h, "supported_at": 0.61}, scenarios)["verdict"], "refuted")
        self.assertEqual(fold.verdict({**h, "scenario": "t", "supported_at": 0.1}, scenarios)["verdict"],
                         "not measured")

    def test_a_scenario_gives_its_cpu_and_throughput(self):
        d = os.path.join(self.dir, "cap")
        os.mkdir(d)
        # 3 runs, 3 s of leanscope's CPU in all: 1 s a run.
        write(os.path.join(d, "cap.folded"), "p;main;parse 2000000000\np;main;write 1000000000\n")
        write(os.path.join(d, "walls"), "2.0\n4.0\n3.0\n")
        s = fold.scenario("cap", "600 bytes", d)
        self.assertEqual(s["median_wall_seconds"], 3.0)
        self.assertEqual(s["cpu_seconds_per_run"], 1.0)
        self.assertEqual(s["throughput_per_cpu_second"], 600.0)
        self.assertEqual(s["top_self"][0], {"frame": "parse", "cpu_ns": 2000000000, "share": 0.6667})
        self.assertIsNone(s["callgrind"])
        json.dumps(s)


if __name__ == "__main__":
    unittest.main()
