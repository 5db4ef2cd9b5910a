#!/usr/bin/env python3
"""An independent implementation of the backward-first rule (sched/greedy.h),
written apart from sched/greedy.c, for the known makespans of
tests/test_family.c (test_backward_first_p8). Chains with one stage per
device, uniform costs, comm c on every hop, memory `act` activations per
device (F holds one, B frees it fused; split: B and W free half each).

Time advances event by event; at each time every free device runs its oldest
ready B, else a forward if memory allows, else its oldest pending W.

usage: tests/ref/backward_first.py   (prints split and fused makespans at p 8)
"""


def makespan(p, m, F, B, W, c, act, split):
    f_ready = [[None] * m for _ in range(p)]   # when F(d, j)'s input arrives
    b_ready = [[None] * m for _ in range(p)]   # when B(d, j)'s inputs arrive
    for j in range(m):
        f_ready[0][j] = 0
    nf, nb = [0] * p, [0] * p
    held = [0] * p                             # activations in use (halves if split)
    unit = 2 if split else 1
    pending_w = [[] for _ in range(p)]
    free = [0] * p
    t, done, total, end = 0, 0, p * m * (3 if split else 2), 0
    while done < total:
        for d in range(p):
            if free[d] > t:
                continue
            b_ok = nb[d] < nf[d] and b_ready[d][nb[d]] is not None and b_ready[d][nb[d]] <= t
            f_ok = (nf[d] < m and f_ready[d][nf[d]] is not None and f_ready[d][nf[d]] <= t
                    and held[d] + unit <= act * unit)
            if b_ok:
                j = nb[d]; nb[d] += 1; fin = t + B
                held[d] -= 1
                if split:
                    pending_w[d].append(j)
                if d > 0:
                    b_ready[d - 1][j] = fin + c
            elif f_ok:
                j = nf[d]; nf[d] += 1; fin = t + F
                held[d] += unit
                if d + 1 < p:
                    f_ready[d + 1][j] = fin + c
                else:
                    b_ready[d][j] = fin
            elif pending_w[d]:
                pending_w[d].pop(0); fin = t + W
                held[d] -= 1
            else:
                continue
            free[d] = fin
            end = max(end, fin)
            done += 1
        later = [x for x in free if x > t]
        later += [v for row in f_ready + b_ready for v in row if v is not None and v > t]
        t = min(later) if later else t + 1
    return end


if __name__ == "__main__":
    for m in (12, 16, 24):
        print("split", m, makespan(8, m, 1, 1, 1, 1, 8, True))
    for m in (12, 16, 24):
        print("fused", m, makespan(8, m, 1, 2, 0, 1, 8, False))
