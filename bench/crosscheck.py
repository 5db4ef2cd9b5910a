#!/usr/bin/env python3
"""Randomized agreement of the exact methods on small instances (issue 14).

usage: bench/crosscheck.py [--seed S] [-n N] [--time T] [--core C] [--pipeopt BIN]

The unit tests compare every exact method with a brute force on tiny
instances (tests/test_exact.c). This goes past what a brute force reaches:
N random instances, each solved by `pipeopt solve` five ways, every one a
separate proof:
  cbc        the default (CBC, formulation auto)
  glpk       --solver glpk
  glpk-nostart  --solver glpk --no-ga-start (another incumbent, another path)
  disj       --always-milp --formulation disjunctive (the MILP even where a
             bound or the exact search certified first)
  ti         --always-milp --formulation time-indexed (makespan only; not
             with F&B overlap, recompute or offload, which only the
             disjunctive model holds)
and by `pipeopt search` (2 s). A row is BAD when two certified objectives
differ, when the search's schedule is better than a certified optimum, when
any run's bound (certified or not) lies above any run's schedule, or when a
run fails with anything but a clean error. --medium takes larger instances,
where passes are stopped by the limit (--time 2): the bounds of stopped
passes are then what is checked. Instances: chains of 2-4
devices (m 2-5), V and interleaved placements of 2-3 devices (m 2-4), a
diamond stage DAG on 3-4 devices (m 2-4), per stage costs 1-5, split or
fused backward, comm 0-2, a memory limit on 60 % of them (from one chunk's
activations up), the span objective on 25 %; on 30 % of the chains with
the makespan, one decision of issue 17 (recompute or offload under the
limit, or F&B overlap). With offload and the span objective no MILP
models the instance: it says so (stopped_by) and certifies nothing.
--overlap puts F&B overlap on every instance instead; --reference BIN
also solves each with another pipeopt (an earlier commit), whose
certificate joins the others: a new bound above an optimum the old code
proves is BAD (the check of a new bound by an independent proof).
Prints one line per instance, then the counts.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

CONFIGS = {
    "cbc": [],
    "glpk": ["--solver", "glpk"],
    "glpk-nostart": ["--solver", "glpk", "--no-ga-start"],
    "disj": ["--always-milp", "--formulation", "disjunctive"],
    "ti": ["--always-milp", "--formulation", "time-indexed"],
}


def instance(rng, name, medium=False, overlap=False):
    place = rng.choice(["chain", "chain", "v", "interleaved", "dag"])
    p = rng.choice([2, 3, 4] if place == "chain" else [3, 4] if place == "dag" else [2, 3])
    m = rng.randint(2, 5 if place == "chain" else 4)
    if medium:   # past what a solve certifies in a second or two
        p = rng.choice([4, 6] if place == "chain" else [3, 4] if place != "dag" else [4])
        m = rng.randint(6, 10 if place == "chain" else 6)
    chunks = 1 if place in ("chain", "dag") else 2
    stages = 4 if place == "dag" else p * chunks
    split = rng.random() < 0.5

    def costs():
        return [rng.randint(1, 5) for _ in range(stages)]

    cost = {"F": costs(), "B": costs()}
    if split:
        cost["W"] = costs()
    d = {"name": name, "devices": p, "microbatches": m, "cost": cost, "comm": rng.randint(0, 2)}
    if place == "dag":   # a diamond: stage 0 feeds 1 and 2, which join at 3
        d["edges"] = [[0, 1], [0, 2], [1, 3], [2, 3]]
        d["placement"] = [0, 1, 2, 3] if p == 4 else [0, 1, 2, 0]
    elif place != "chain":
        d["chunks"], d["placement"] = 2, place
    if rng.random() < 0.6:
        mem = {"F": 2, "B": -1, "W": -1} if split else {"F": 2, "B": -2}
        mem["limit"] = 2 * rng.randint(chunks, chunks * p + 1)
        d["memory"] = mem
    if rng.random() < 0.25:
        d["objective"] = "span"
    if overlap:   # --overlap: F&B pairs on every instance, any placement and objective
        d["overlap"] = {"factor": rng.choice([0, 0.25, 0.5])}
        return d
    # the decisions of issue 17, on chains: recompute or offload under a
    # memory limit, or F&B overlap
    if place == "chain" and d.get("objective") != "span" and rng.random() < 0.3:
        what = rng.choice(["recompute", "offload", "overlap"] if "memory" in d else ["overlap"])
        if what == "recompute":
            d["recompute"] = {"R": rng.randint(1, 3), "keep": 0}
        elif what == "offload":
            o = rng.randint(1, 3)
            d["offload"] = {"O": o, "L": o}
        else:
            d["overlap"] = {"factor": rng.choice([0, 0.5, 1])}
    return d


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"error": "no JSON on stdout"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=50)
    ap.add_argument("--time", type=float, default=10, help="seconds per solve")
    ap.add_argument("--core", help="taskset core for every run")
    ap.add_argument("--medium", action="store_true",
                    help="larger instances (chains of 4-6 devices, m 6-10), where passes are stopped")
    ap.add_argument("--overlap", action="store_true",
                    help="F&B overlap (factor 0, 1/4 or 1/2) on every instance, any placement and objective")
    ap.add_argument("--reference", metavar="BIN",
                    help="another pipeopt (an earlier commit) whose certified optimum every bound "
                         "and certificate of this one must respect: a check of new bounds by "
                         "an independent proof")
    ap.add_argument("--pipeopt", default=os.path.join(os.path.dirname(__file__), "..", "build", "pipeopt"))
    a = ap.parse_args()
    pin = ["taskset", "-c", a.core] if a.core is not None else []
    rng = random.Random(a.seed)
    bad = certified = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.n):
            d = instance(rng, f"x{a.seed}-{i}", a.medium, a.overlap)
            path = os.path.join(tmp, "i.json")
            with open(path, "w") as fh:
                json.dump(d, fh)
            res = {}
            for k, extra in CONFIGS.items():
                if k == "ti" and (d.get("objective") == "span" or "recompute" in d or
                                  "offload" in d or
                                  d.get("overlap", {}).get("factor", 1) < 1):
                    continue
                res[k] = run(pin + [a.pipeopt, "solve", path, "--json", "--time-limit", str(a.time)] + extra)
            s = run(pin + [a.pipeopt, "search", path, "--json", "--time-limit", "2"])
            if a.reference:
                ref = run(pin + [a.reference, "solve", path, "--json", "--time-limit", str(a.time)])
                if ref.get("certified"):
                    res["reference"] = ref
            certs = {k: r["objective"] for k, r in res.items() if r.get("certified")}
            errs = {k: r["error"] for k, r in res.items() if "error" in r}
            found = s.get("objective")
            vals = set(certs.values())
            # every bound, certified or not, lies at or below every schedule
            objs = [r["objective"] for r in res.values() if "objective" in r]
            objs += [found] if found is not None else []
            bounds = {k: r["bound"] for k, r in res.items() if "bound" in r}
            over = {k: b for k, b in bounds.items() if objs and b > min(objs)}
            wrong = len(vals) > 1 or (vals and found is not None and found < min(vals)) or over
            # an instance whose memory limit admits no schedule is a clean error
            unclean = errs and not all("no valid schedule" in e or "infeasible" in e
                                       for e in errs.values())
            bad += bool(wrong or unclean)
            certified += bool(vals)
            tag = "BAD" if wrong or unclean else "ok "
            print(f"{tag} {json.dumps(d)} certified={certs} search={found} errors={errs}"
                  + (f" bounds above a schedule={over}" if over else ""), flush=True)
    print(f"{a.n} instances, {certified} certified by at least one method, {bad} BAD")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
