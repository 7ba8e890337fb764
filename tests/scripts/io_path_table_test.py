"""scripts/gpu/io-path-table.py on measured reports: each point's rate, its share of the ceiling
the same process measured, and the engine that served it (blocks x warps per block, and its
placement where it is not the block scheduler's), as the reports say, and the share of the
resident client threads' I/Os in flight; a report from before the engine's (or the client
threads') keys gets "-" there."""
import json
import shutil
import unittest

from script_test import REPO, TempDirTest, run

SWEEP = REPO / "results" / "engine-footprint" / "h200" / "2026-11-29-794fd0c"
OLD = REPO / "results" / "io-path" / "h200" / "2026-11-25-51665de" / "emulator"


def sweep_point(n, group, protocol, blocks, warps):
    """The report of point n of the engine-footprint sweep's run."""
    return SWEEP / (f"p{n:03d}_{group}_protocol-{protocol}_engine_blocks-{blocks}"
                    f"_engine_warps_per_block-{warps}.json")


class IoPathTable(TempDirTest):
    def test_rows_name_the_rate_its_share_and_the_engine(self):
        points = {
            ("emulator", "optane10_1g"): sweep_point(0, "ssd10_1g", "emulator", 0, 0),
            ("hardware", "optane10_1g"): sweep_point(4, "ssd10_1g", "hardware", 0, 0),
            ("hardware", "ideal_512_4g"): sweep_point(15, "ideal_4g", "hardware", 40, 16),
            # a later point of the table's order than the even one (any report stands in)
            ("hardware", "qd1_null"): sweep_point(15, "ideal_4g", "hardware", 40, 16),
            ("emulator", "ideal_512_1g"): OLD / "ideal_512_1g.json",
        }
        for (protocol, point), src in points.items():
            (self.tmp / protocol).mkdir(exist_ok=True)
            shutil.copy(src, self.tmp / protocol / f"{point}.json")
        # A report with the client threads' keys (nvm-block-bench's since they exist): one of the
        # above with them added.
        doc = json.loads(points[("emulator", "optane10_1g")].read_text())
        doc["jobs"][0]["bamkit"]["stats"]["client_threads"] = {"peak_resident": 29440,
                                                               "in_flight_share": 0.4213}
        points[("emulator", "with_clients")] = self.tmp / "with_clients.json"
        (self.tmp / "with_clients.json").write_text(json.dumps(doc))
        shutil.copy(self.tmp / "with_clients.json", self.tmp / "emulator" / "with_clients.json")
        # A report of the engine on the first SMs (optane10_1g_even): its placement is named.
        doc = json.loads(points[("hardware", "optane10_1g")].read_text())
        b = doc["jobs"][0].get("bamkit", doc["bamkit"])
        b["config"]["gpu"]["engine_placement"] = "first-sms"
        points[("hardware", "optane10_1g_even")] = self.tmp / "even.json"
        (self.tmp / "even.json").write_text(json.dumps(doc))
        shutil.copy(self.tmp / "even.json", self.tmp / "hardware" / "optane10_1g_even.json")
        # A report of gpu.engine_placement auto, resolved to the first SMs (its stats say so).
        doc = json.loads(points[("emulator", "optane10_1g")].read_text())
        b = doc["jobs"][0].get("bamkit", doc["bamkit"])
        b["config"]["gpu"]["engine_placement"] = "auto"
        b["stats"]["engine_placement"] = "first-sms"
        points[("emulator", "auto_even")] = self.tmp / "auto_even.json"
        (self.tmp / "auto_even.json").write_text(json.dumps(doc))
        shutil.copy(self.tmp / "auto_even.json", self.tmp / "emulator" / "auto_even.json")
        out = run("gpu/io-path-table.py", self.tmp, "--json", self.tmp / "rows.json", check=0)
        lines = [l for l in out.stdout.splitlines() if l.startswith("| emulator") or
                 l.startswith("| hardware")]
        self.assertEqual(len(lines), len(points), out.stdout)
        rows = {(r["protocol"], r["point"]): r
                for r in json.loads((self.tmp / "rows.json").read_text())}
        self.assertEqual(set(rows), set(points))
        for key, src in points.items():
            job = json.loads(src.read_text())["jobs"][0]
            b = job["bamkit"]
            line = next(l for l in lines if l.startswith(f"| {key[0]} | {key[1]} |"))
            cells = [c.strip() for c in line.strip("|").split("|")]
            self.assertEqual(rows[key]["iops"], job["read"]["iops"])
            self.assertTrue(cells[3].startswith(f"{job['read']['iops'] / 1e6:.2f} M IOPS"), line)
            ceil = b["ceilings"]["direct_reads_per_s"]
            self.assertEqual(cells[5], f"{job['read']['iops'] / ceil:.2f}", line)
            st = b["stats"]
            if "engine_blocks" in st:
                want = f"{st['engine_blocks']} x {st['engine_warps'] // st['engine_blocks']}"
            else:
                want = "-"
            if key[1] == "optane10_1g_even":
                want += ", first-sms"
            if key[1] == "auto_even":
                want += ", first-sms (auto)"
            self.assertEqual(cells[7], want, line)
            self.assertEqual(cells[8], "0.42 of 29,440" if key[1] == "with_clients" else "-", line)
        # The automatic shape: 16 x 16, with the ordering warps' block beside in the hardware
        # protocol at 10 SSDs; 40 blocks as given.
        self.assertEqual(rows[("emulator", "optane10_1g")]["engine_blocks"], 16)
        self.assertEqual(rows[("hardware", "optane10_1g")]["engine_blocks"], 17)
        self.assertEqual(rows[("hardware", "ideal_512_4g")]["engine_blocks"], 40)
        self.assertNotIn("engine_blocks", rows[("emulator", "ideal_512_1g")])
        self.assertEqual(rows[("hardware", "optane10_1g_even")]["engine_placement"], "first-sms")
        self.assertNotIn("engine_placement", rows[("hardware", "optane10_1g")])  # before c61a382
        self.assertEqual(rows[("emulator", "auto_even")]["engine_placement"], "first-sms")
        self.assertTrue(rows[("emulator", "auto_even")]["engine_placement_auto"])
        self.assertFalse(rows[("hardware", "optane10_1g_even")]["engine_placement_auto"])
        # Rows in the table's order: the even point right after its default.
        order = [l.split("|")[2].strip() for l in lines if l.startswith("| hardware")]
        self.assertEqual(order.index("optane10_1g_even"), order.index("optane10_1g") + 1, order)
        self.assertEqual(rows[("emulator", "with_clients")]["peak_resident"], 29440)
        self.assertNotIn("in_flight_share", rows[("emulator", "optane10_1g")])


if __name__ == "__main__":
    unittest.main()
