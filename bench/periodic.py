#!/usr/bin/env python3
"""The shortest period of 1-periodic schedules under a memory limit (issue 17).

usage: bench/periodic.py INSTANCE P0 P1 [--time S] [--pipeopt BIN]

For each period P from P0 to P1, asks CBC (the `cbc` program) whether a
1-periodic schedule with period P exists: every micro-batch runs the same
timetable, shifted by P from the one before. For P where one exists, the
schedule is unrolled to the instance's m micro-batches (each device's ops
sorted by their periodic start) and timed by `pipeopt simulate`, which
validates it; the table gives the makespan and peak memory. A row is
"infeasible" when CBC proves that no 1-periodic schedule has period P,
"unknown" when it finds none within S seconds (default 20).

Instances: a chain of stages on the linear (stage l on device l mod p) or
V placement, one cost per kind (F, B and W, or F and B fused), one comm
latency, memory deltas per kind with a limit, and no recompute, offload or
overlap. The deltas must sum to 0 over a stage's kinds.

The model at a fixed P. Each op o of micro-batch 0 (kind, stage) gets a
start t_o = theta_d + phi_o + P k_o: theta_d in [0, P) is device d's period
origin, phi_o in [0, P - dur_o] the op's phase within the period (no op
wraps: with P above the device's work an idle instant exists to put the
origin at), k_o an integer (the period it falls in). Micro-batch j's op o
starts at t_o + j P.
- Dependencies (same micro-batch): t_b >= t_a + dur_a + lag, with the
  comm latency between different devices (F chain forwards, B chain
  backwards, B after F on the last stage, W after B).
- One op at a time: binaries y_ab per pair of a device's ops order their
  phases, phi_b >= phi_a + dur_a - P (1 - y_ab) and phi_a >= phi_b + dur_b
  - P y_ab; ops of all micro-batches then never overlap (each period holds
  exactly one instance of each op, inside [theta_d, theta_d + P)).
- Memory: in period n (large), just after op x starts, op o has started
  n - k_o + [o = x or o before x in the period] times, so the memory in use
  is sum_o delta_o (-k_o + [o before or = x]) (the n terms cancel as the
  deltas sum to 0). That is linear in k and y; it must be <= the limit
  for every x of the device. The memory of the unrolled schedule is never
  above it: each micro-batch holds a non-negative amount at any time, and
  the unrolled schedule has a subset of the periodic one's micro-batches.
- Objective: the latency Z >= t_o + dur_o, with F of stage 0 at k = 0 and
  theta_0 = 0, so that the unrolled makespan is about (m - 1) P + Z.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile


def name(o):
    """An op's name in the model: kind and stage, e.g. F3."""
    return f"{o[0]}{o[1]}"


def die(msg):
    sys.exit(f"periodic.py: {msg}")


def load(path):
    try:
        inst = json.load(open(path))
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    for key in ("recompute", "offload", "overlap", "edges", "stage_device"):
        if key in inst:
            die(f"{path}: key '{key}' is not modelled")
    cost, mem = inst.get("cost"), inst.get("memory")
    if not isinstance(cost, dict) or not isinstance(mem, dict) or "limit" not in mem:
        die(f"{path}: needs 'cost' and 'memory' with a 'limit'")
    kinds = ["F", "B", "W"] if "W" in cost else ["F", "B"]
    for k in kinds:
        if not isinstance(cost[k], int) or not isinstance(mem.get(k, 0), int):
            die(f"{path}: cost.{k} and memory.{k} must be single integers")
    if sum(mem.get(k, 0) for k in kinds) != 0:
        die(f"{path}: memory deltas must sum to 0 over a stage's kinds")
    if not isinstance(inst.get("comm", 0), int):
        die(f"{path}: comm must be a single integer")
    return inst, kinds


class Model:
    def __init__(self, inst, kinds):
        self.p = inst["devices"]
        self.m = inst["microbatches"]
        chunks = inst.get("chunks", 1)
        self.v = inst.get("placement", "linear") == "v"
        self.stages = self.p * chunks
        self.kinds = kinds
        self.dur = {k: inst["cost"][k] for k in kinds}
        self.delta = {k: inst["memory"].get(k, 0) for k in kinds}
        self.limit = inst["memory"]["limit"]
        self.comm = inst.get("comm", 0)
        self.ops = [(k, s) for s in range(self.stages) for k in kinds]
        self.on = {d: [o for o in self.ops if self.dev(o[1]) == d] for d in range(self.p)}

    def dev(self, s):
        if self.v:
            return s if s < self.p else 2 * self.p - 1 - s
        return s % self.p

    def deps(self):
        """(a, b, lag): b starts at least lag after a starts."""
        out = []
        for s in range(self.stages - 1):
            c = self.comm if self.dev(s) != self.dev(s + 1) else 0
            out.append((("F", s), ("F", s + 1), self.dur["F"] + c))
            out.append((("B", s + 1), ("B", s), self.dur["B"] + c))
        last = self.stages - 1
        out.append((("F", last), ("B", last), self.dur["F"]))
        if "W" in self.kinds:
            out += [(("B", s), ("W", s), self.dur["B"]) for s in range(self.stages)]
        return out

    def lp(self, P):
        n = name
        rows = []

        def start(o, sign, coef):   # t_o as coefficients
            for var, c in ((f"th{self.dev(o[1])}", 1), (f"ph_{n(o)}", 1), (f"k_{n(o)}", P)):
                coef[var] = coef.get(var, 0) + sign * c

        def row(coef, rel, rhs):
            terms = " ".join(f"{c:+d} {v}" for v, c in coef.items() if c)
            rows.append(f"{terms} {rel} {rhs}")

        bins = []
        for d in range(self.p):
            for a, b in itertools.combinations(self.on[d], 2):
                y = f"y_{n(a)}_{n(b)}"
                bins.append(y)
                row({f"ph_{n(b)}": 1, f"ph_{n(a)}": -1, y: -P}, ">=", self.dur[a[0]] - P)
                row({f"ph_{n(a)}": 1, f"ph_{n(b)}": -1, y: P}, ">=", self.dur[b[0]])
            for x in self.on[d]:   # memory just after x starts
                coef, const = {}, 0
                for o in self.on[d]:
                    dl = self.delta[o[0]]
                    coef[f"k_{n(o)}"] = coef.get(f"k_{n(o)}", 0) - dl
                    if o == x:
                        const += dl
                        continue
                    first = self.on[d].index(o) < self.on[d].index(x)
                    y = f"y_{n(o)}_{n(x)}" if first else f"y_{n(x)}_{n(o)}"
                    if first:   # o before x iff y
                        coef[y] = coef.get(y, 0) + dl
                    else:       # o before x iff not y
                        const += dl
                        coef[y] = coef.get(y, 0) - dl
                row(coef, "<=", self.limit - const)
        for a, b, lag in self.deps():
            coef = {}
            start(b, 1, coef)
            start(a, -1, coef)
            row(coef, ">=", lag)
        for o in self.ops:
            coef = {"Z": -1}
            start(o, 1, coef)
            row(coef, "<=", -self.dur[o[0]])
        row({"k_F0": 1}, "=", 0)
        row({"th0": 1}, "=", 0)
        text = ["Minimize", " obj: Z", "Subject To"]
        text += [f" c{i}: {r}" for i, r in enumerate(rows)]
        text.append("Bounds")
        text += [f" 0 <= th{d} <= {P}" for d in range(self.p)]
        text += [f" 0 <= ph_{n(o)} <= {P - self.dur[o[0]]}" for o in self.ops]
        text += [f" -{4 * self.stages} <= k_{n(o)} <= {4 * self.stages}" for o in self.ops]
        text += ["General", " " + " ".join(f"k_{n(o)}" for o in self.ops)]
        text += ["Binary", " " + " ".join(bins), "End"]
        return "\n".join(text) + "\n"

    def unroll(self, P, val):
        n = name
        t = {o: val.get(f"th{self.dev(o[1])}", 0) + val.get(f"ph_{n(o)}", 0) +
             P * round(val.get(f"k_{n(o)}", 0)) for o in self.ops}
        rows = [[] for _ in range(self.p)]
        for o in self.ops:
            for j in range(self.m):
                rows[self.dev(o[1])].append((t[o] + j * P, self.kinds.index(o[0]), o, j))
        return {"schedule": [[[o[0], o[1], j] for _, _, o, j in sorted(r)] for r in rows]}


def solve(model, P, seconds, tmp):
    lp, sol = os.path.join(tmp, "p.lp"), os.path.join(tmp, "p.sol")
    open(lp, "w").write(model.lp(P))
    if os.path.exists(sol):
        os.remove(sol)
    try:
        subprocess.run(["cbc", lp, "sec", str(seconds), "solve", "solu", sol],
                       capture_output=True, text=True, check=False)
    except OSError as e:
        die(f"cbc: {e} (Debian: apt-get install coinor-cbc)")
    if not os.path.exists(sol):
        die(f"cbc wrote no solution file for P = {P}")
    lines = open(sol).read().splitlines()
    head = lines[0] if lines else ""
    if head.startswith("Infeasible") or head.startswith("Integer infeasible"):
        return "infeasible", None
    if "no integer solution" in head or not head:
        return "unknown", None
    val = {}
    for line in lines[1:]:
        f = line.split()
        if len(f) >= 3:
            val[f[1]] = float(f[2])
    return ("optimal" if head.startswith("Optimal") else "feasible"), val


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("instance")
    ap.add_argument("p0", type=int)
    ap.add_argument("p1", type=int)
    ap.add_argument("--time", type=float, default=20)
    ap.add_argument("--pipeopt", default=os.path.join(os.path.dirname(__file__), "..", "build", "pipeopt"))
    a = ap.parse_args()
    inst, kinds = load(a.instance)
    model = Model(inst, kinds)
    print(f"| period P | 1-periodic schedule (CBC, {a.time:g} s) | latency Z | makespan (unrolled, simulated) | peak |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for P in range(a.p0, a.p1 + 1):
            status, val = solve(model, P, a.time, tmp)
            if val is None:
                print(f"| {P} | {status} | - | - | - |", flush=True)
                continue
            path = os.path.join(tmp, "s.json")
            json.dump(model.unroll(P, val), open(path, "w"))
            r = subprocess.run([a.pipeopt, "simulate", a.instance, "--schedule", path, "--json",
                                "--no-timeline"], capture_output=True, text=True)
            try:
                j = json.loads(r.stdout)
                ms, pk = j["makespan"], max(j["peak_memory"])
            except (ValueError, KeyError):
                ms, pk = "invalid: " + r.stderr.strip()[:120], "-"
            print(f"| {P} | {status} | {val.get('Z', 0):g} | {ms} | {pk} |", flush=True)


if __name__ == "__main__":
    main()
