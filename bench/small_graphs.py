"""Random small model graphs for the partition benchmarks (bench/partition.sh,
bench/partition_ilp.sh): one op per node of the given edges, forward and
backward times drawn in 1..20 us at the first listed size and scaled by
`fwd` and `bwd` factors for the others, activation, weight and output bytes
drawn per op, one 100 B/us link with 1 us latency. The draws, in this
order per op (f, b, act, weight, out), make a seed's graphs the same in
both scripts and across runs."""


def random_graph(name, n, edges, rng, batch=16, sizes=(2, 4), fwd=(1, 1.7), bwd=(1, 1.8),
                 devices=8, memory_bytes=1e9):
    ops = [{"name": f"n{v}", "fwd": [x * f for x in fwd], "bwd": [x * b for x in bwd],
            "act_bytes": 100.0 * rng.randint(1, 5), "weight_bytes": 1000.0 * rng.randint(1, 5),
            "out_bytes": 10.0 * rng.randint(1, 5)}
           for v in range(n) for f, b in [(rng.randint(1, 20), rng.randint(1, 20))]]
    return {"name": name, "batch": batch, "microbatch_sizes": list(sizes),
            "machine": {"devices": devices, "memory_bytes": memory_bytes,
                        "link_latency_us": 1, "link_bandwidth": 100},
            "ops": ops, "edges": [[f"n{a}", f"n{b}"] for a, b in edges]}
