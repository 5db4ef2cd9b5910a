"""An independent exact optimum for recompute instances (fused chains): a
memoised search over every order and every recompute choice, written
apart from pipeopt (its semantics from docs/formats.md), with micro-batch
symmetry reduction (non-FIFO) or FIFO per (kind, stage).

Used for the known answers of tests/test_recompute.c (test_fifo_loses: 14
in any order, 15 in FIFO) and datasets/instances/recompute-3x4.json (23;
29 with recompute ineffective). Run: python3 tests/ref/recompute_dp.py

State: (free times relative to current start s, tuple of per-micro-batch states)
mb state: tuple of L stage statuses (0 none, 1 F kept, 2 F recomputed, 3 B done)
          followed by L ready times (relative, clamped at 0) of the stage's
          pending cross-device output.
Non-FIFO: micro-batches are interchangeable, so the mb tuple is sorted (canonical).
"""
import sys
INF = float('inf')
sys.setrecursionlimit(100000)


def make_solver(inst, fifo):
    L, M, D = inst.L, inst.M, inst.D
    place = inst.place
    comm = inst.comm
    lim = inst.limit
    a, keep, f, b, R = inst.a, inst.keep, inst.f, inst.b, inst.R
    canrec = [a[l] - keep[l] > 0 for l in range(L)]
    xF = [l + 1 < L and place[l + 1] != place[l] for l in range(L)]   # F(l) output crosses
    xB = [l > 0 and place[l - 1] != place[l] for l in range(L)]       # B(l) output crosses
    memo = {}

    def memof(mbs):
        mem = [0] * D
        for s in mbs:
            for l in range(L):
                if s[l] == 1:
                    mem[place[l]] += a[l]
                elif s[l] == 2:
                    mem[place[l]] += keep[l]
        return mem

    def transitions(free, mbs):
        """yield (st, newfree, newmbs) for every feasible next op."""
        mem = memof(mbs)
        seen = set()
        for j, s in enumerate(mbs):
            if not fifo:
                if s in seen:
                    continue
                seen.add(s)
            for l in range(L):
                sl = s[l]
                d = place[l]
                if sl == 0:
                    if l > 0 and s[l - 1] == 0:
                        continue
                    if fifo and j > 0 and mbs[j - 1][l] == 0:
                        continue
                    st = free[d]
                    if l > 0 and xF[l - 1] and s[L + l - 1] > st:
                        st = s[L + l - 1]
                    end = st + f[l]
                    for c in ((0, 1) if canrec[l] else (0,)):
                        if mem[d] + (keep[l] if c else a[l]) > lim[d]:
                            continue
                        ns = list(s)
                        ns[l] = 2 if c else 1
                        if l > 0 and xF[l - 1]:
                            ns[L + l - 1] = 0
                        if xF[l]:
                            ns[L + l] = end + comm
                        yield st, end, d, j, tuple(ns)
                elif sl in (1, 2):
                    if l < L - 1 and s[l + 1] != 3:
                        continue
                    if fifo and j > 0 and mbs[j - 1][l] != 3:
                        continue
                    if sl == 2 and mem[d] + a[l] - keep[l] > lim[d]:
                        continue
                    st = free[d]
                    if l < L - 1 and xB[l + 1] and s[L + l + 1] > st:
                        st = s[L + l + 1]
                    end = st + b[l] + (R[l] if sl == 2 else 0)
                    ns = list(s)
                    ns[l] = 3
                    if l < L - 1 and xB[l + 1]:
                        ns[L + l + 1] = 0
                    if xB[l]:
                        ns[L + l] = end + comm
                    yield st, end, d, j, tuple(ns)

    def child(free, mbs, st, end, d, j, ns):
        nfree = tuple(max(0, (end if dd == d else free[dd]) - st) for dd in range(D))
        out = []
        for jj, s in enumerate(mbs):
            if jj == j:
                s = ns
            if any(s[L + l] for l in range(L)):
                s = s[:L] + tuple(max(0, x - st) for x in s[L:])
            out.append(s)
        if not fifo:
            out.sort()
        return nfree, tuple(out)

    def rec(free, mbs):
        key = (free, mbs)
        v = memo.get(key)
        if v is not None:
            return v
        if all(s[l] == 3 for s in mbs for l in range(L)):
            v = max(free)
            memo[key] = v
            return v
        best = INF
        for st, end, d, j, ns in transitions(free, mbs):
            nfree, nmbs = child(free, mbs, st, end, d, j, ns)
            v2 = rec(nfree, nmbs) + st
            if v2 < best:
                best = v2
        memo[key] = best
        return best

    init = ((0,) * D, tuple((0,) * (2 * L) for _ in range(M)))

    def run():
        return rec(*init)

    def reconstruct():
        """Greedy replay; tracks real labels via a permutation."""
        free, mbs = init
        # label[j] = real micro-batch id of canonical slot j
        labels = list(range(M))
        total = rec(free, mbs)
        base = 0
        order = [[] for _ in range(D)]
        recset = set()
        while not all(s[l] == 3 for s in mbs for l in range(L)):
            cur = rec(free, mbs)
            found = False
            for st, end, d, j, ns in transitions(free, mbs):
                nfree, nmbs = child(free, mbs, st, end, d, j, ns)
                if rec(nfree, nmbs) + st == cur:
                    # which stage changed
                    old = mbs[j]
                    l = next(i for i in range(L) if old[i] != ns[i])
                    mb = labels[j]
                    if old[l] == 0:
                        order[d].append(["F", l, mb])
                        if ns[l] == 2:
                            recset.add((l, mb))
                    else:
                        e = ["B", l, mb]
                        if old[l] == 2:
                            e.append("recompute")
                        order[d].append(e)
                    # recompute label mapping for new canonical order
                    lst = [ns if jj == j else s for jj, s in enumerate(mbs)]
                    # relative shift as in child
                    pairs = []
                    for jj, s in enumerate(lst):
                        if any(s[L + i] for i in range(L)):
                            s = s[:L] + tuple(max(0, x - st) for x in s[L:])
                        pairs.append((s, labels[jj]))
                    if not fifo:
                        pairs.sort(key=lambda p: p[0])
                    assert tuple(p[0] for p in pairs) == nmbs
                    labels = [p[1] for p in pairs]
                    free, mbs = nfree, nmbs
                    found = True
                    break
            assert found
        return total, {"schedule": order}

    return run, reconstruct, memo


def solve2(inst, fifo, want_sched=False):
    run, reconstruct, memo = make_solver(inst, fifo)
    v = run()
    if want_sched and v < INF:
        v2, s = reconstruct()
        return v, s, len(memo)
    return v, None, len(memo)


class Inst:
    """A fused chain: D devices, stage l on device place[l], M micro-batches,
    per-stage F cost f, B cost b, recompute cost R, kept memory keep, F's
    memory a (B frees it), comm on every cross-device edge, per-device
    limit."""

    def __init__(self, D, M, place, f, b, R, keep, a, comm, limit):
        self.D, self.M, self.place = D, M, list(place)
        self.L = len(place)
        self.f, self.b, self.R, self.keep, self.a = f, b, R, keep, a
        self.comm, self.limit = comm, limit


if __name__ == "__main__":
    # tests/test_recompute.c, test_fifo_loses
    t = Inst(2, 3, [0, 1], [2, 1], [1, 1], [3, 1], [0, 0], [1, 1], 0, [1, 1])
    print("test_fifo_loses: any order", solve2(t, False)[0], "FIFO", solve2(t, True)[0])
    # datasets/instances/recompute-3x4.json, and with keep = a (no gain)
    r = Inst(3, 4, [0, 1, 2], [1] * 3, [2] * 3, [1] * 3, [0] * 3, [2] * 3, 1, [4] * 3)
    n = Inst(3, 4, [0, 1, 2], [1] * 3, [2] * 3, [1] * 3, [2] * 3, [2] * 3, 1, [4] * 3)
    print("recompute-3x4:", solve2(r, False)[0], "without recompute's effect:", solve2(n, False)[0])
