#!/usr/bin/env bash
# Write the model graphs under datasets/graphs/ with analytic per-operator
# costs (FLOPs and bytes against a GPU's datasheet rates) until profiled
# costs replace them. Rerun to regenerate byte for byte.
#
# Cost of an operator at per-device micro-batch q (samples):
#   time_us = max(flops / (efficiency * peak), bytes / bandwidth) + 5 us launch
# with fp16 tensor peak and HBM bandwidth from the datasheets (H200: 989
# TFLOP/s dense, 4.8 TB/s, 141 GB; A100 80GB: 312 TFLOP/s, 2.04 TB/s; V100
# 32GB: 125 TFLOP/s, 0.9 TB/s), efficiency 0.5. A linear layer n -> k:
# forward 2 q n k FLOPs, input gradient the same, weight gradient the same;
# bytes: weights 2 n k (fp16) plus q (n + k) 2 activations. Stored
# activations per sample: the layer's input (2 n bytes). Weights: 2 n k
# bytes; out_bytes: 2 k per sample. Machines: 32 devices, the GPU's memory,
# links of 12.5 GB/s (100 Gb/s InfiniBand) and 5 us latency, Adam (8
# optimizer bytes per parameter, 2 bytes per weight).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import json, os

GPUS = {"h200": (989e12, 4.8e12, 141e9), "a100": (312e12, 2.04e12, 80e9), "v100": (125e12, 0.9e12, 32e9)}
SIZES = [1, 2, 4, 8, 16, 32, 64, 128]
EFF = 0.5

def t_us(flops, bytes_, gpu):
    peak, bw, _ = GPUS[gpu]
    return round(max(flops / (EFF * peak), bytes_ / bw) * 1e6 + 5.0, 3)

def linear(name, n, k, gpu):
    f = [t_us(2 * q * n * k, 2 * n * k + 2 * q * (n + k), gpu) for q in SIZES]
    return {"name": name, "kind": "linear", "shape": [n, k], "fwd": f, "bwd": f, "wgrad": f,
            "act_bytes": 2 * n, "weight_bytes": 2 * n * k, "out_bytes": 2 * k}

def transformer(name, s, h, ffn, heads, gpu):
    # per sample: 4 h^2 (QKV + out) + 2 h ffn matmul weights; FLOPs 2 s (4h^2 + 2 h ffn) + 4 s^2 h
    w = 4 * h * h + 2 * h * ffn
    fl = 2 * s * w + 4 * s * s * h
    f = [t_us(q * fl, 2 * w + q * s * h * 2 * 8, gpu) for q in SIZES]
    b = [t_us(q * (2 * s * w + 8 * s * s * h), 2 * w + q * s * h * 2 * 8, gpu) for q in SIZES]
    wg = [t_us(q * 2 * s * w, 2 * w + q * s * h * 2 * 4, gpu) for q in SIZES]
    act = s * h * (34 + 5 * heads * s / h)  # Korthikanti et al., fp16 bytes per sample
    return {"name": name, "kind": "transformer_layer", "shape": [s, h, ffn, heads], "fwd": f, "bwd": b,
            "wgrad": wg, "act_bytes": round(act), "weight_bytes": 2 * w, "out_bytes": 2 * s * h}

def simple(name, kind, out_bytes, act_bytes=0, fwd=5.0):
    return {"name": name, "kind": kind, "fwd": fwd, "bwd": fwd, "act_bytes": act_bytes,
            "out_bytes": out_bytes}

def machine(gpu):
    return {"name": gpu, "devices": 32, "memory_bytes": GPUS[gpu][2], "link_latency_us": 5,
            "link_bandwidth": 12500, "optimizer_bytes_per_param": 8, "bytes_per_param": 2}

def write(name, gpu, ops, edges, batch, prov):
    os.makedirs("datasets/graphs", exist_ok=True)
    g = {"name": f"{name}-{gpu}", "provenance": prov, "batch": batch, "microbatch_sizes": SIZES,
         "machine": machine(gpu), "ops": ops, "edges": edges}
    with open(f"datasets/graphs/{name}-{gpu}.json", "w") as f:
        json.dump(g, f, indent=1)
        f.write("\n")

def candle_uno(gpu, branches):
    # CANDLE-Uno: branches x 4 FF layers of 4096, concat, FF head
    ops, edges = [simple("input", "input", 2 * 4096)], []
    for b in range(branches):
        prev = "input"
        for l in range(4):
            n = f"b{b}.ff{l}"
            ops.append(linear(n, 4096, 4096, gpu)); edges.append([prev, n]); prev = n
        edges.append([prev, "concat"])
    ops.append(simple("concat", "concat", 2 * branches * 4096))
    ops.append(linear("head.ff0", branches * 4096, 4096, gpu)); edges.append(["concat", "head.ff0"])
    for l in range(1, 4):
        ops.append(linear(f"head.ff{l}", 4096, 4096, gpu)); edges.append([f"head.ff{l-1}", f"head.ff{l}"])
    ops.append(linear("head.out", 4096, 1, gpu)); edges.append(["head.ff3", "head.out"])
    return ops, edges

# CANDLE-Uno with 2, 4, 8, 16 branches on A100, for the branch-count sweep
# (datasets/sweeps/graphpipe.json)
for branches in (2, 4, 8, 16):
    ops, edges = candle_uno("a100", branches)
    write(f"candle-uno-b{branches}", "a100", ops, edges, 1024,
          f"CANDLE-Uno shape with {branches} branches x 4 FF layers of 4096, concat, FF head; analytic costs")

for gpu in ("a100", "h200", "v100"):
    ops, edges = candle_uno(gpu, 7)
    write("candle-uno", gpu, ops, edges, 1024,
          "GraphPipe (ASPLOS'25) App. A.2: 7 branches x 4 FF layers of 4096, concat, FF head; analytic costs")

    # Multi-Modal Transformer: 4 branches x 8 layers (seq 256, hidden 1024, 16 heads, FFN 4096), concat, head
    ops, edges = [simple("input", "input", 2 * 256 * 1024)], []
    for b in range(4):
        prev = "input"
        for l in range(8):
            n = f"m{b}.layer{l}"
            ops.append(transformer(n, 256, 1024, 4096, 16, gpu)); edges.append([prev, n]); prev = n
        edges.append([prev, "concat"])
    ops.append(simple("concat", "concat", 2 * 256 * 4096))
    ops.append(linear("head", 4096, 1024, gpu)); edges.append(["concat", "head"])
    write("mmt", gpu, ops, edges, 128,
          "GraphPipe App. A.2: MMT, 4 branches x 8 Transformer layers (s 256, h 1024, 16 heads, FFN 4096); analytic costs")

    # DLRM: 7 dense towers of 4 FF(4096), 7 embedding bags 1M x 64 (bag 100), concat, interaction, FF head
    ops, edges = [simple("input", "input", 2 * 4096)], []
    for b in range(7):
        prev = "input"
        for l in range(4):
            n = f"dense{b}.ff{l}"
            ops.append(linear(n, 4096, 4096, gpu)); edges.append([prev, n]); prev = n
        edges.append([prev, "concat"])
    for e in range(7):
        n = f"emb{e}"
        f = [t_us(q * 100 * 64, q * 100 * 64 * 2 * 4, gpu) for q in SIZES]
        ops.append({"name": n, "kind": "embedding_bag", "shape": [1000000, 64, 100], "fwd": f, "bwd": f,
                    "wgrad": f, "act_bytes": 100 * 8, "weight_bytes": 1000000 * 64 * 2, "out_bytes": 64 * 2})
        edges.append(["input", n]); edges.append([n, "concat"])
    ops.append(simple("concat", "concat", 2 * (7 * 4096 + 7 * 64)))
    ops.append(simple("interaction", "interaction", 2 * 4096, act_bytes=2 * 7 * 4096, fwd=20.0))
    edges.append(["concat", "interaction"])
    prev = "interaction"
    for l in range(4):
        n = f"head.ff{l}"
        ops.append(linear(n, 4096, 4096, gpu)); edges.append([prev, n]); prev = n
    write("dlrm", gpu, ops, edges, 1024,
          "GraphPipe App. A.2: DLRM, 7 dense towers (4 FF of 4096) + 7 embedding bags (1M x 64, bag 100), concat, interaction, FF head; analytic costs")

# GPT chains: Zero Bubble's configurations (layers, heads, hidden; seq 1024,
# FFN 4h), with an embedding and a head, on A100 (the paper's GPUs)
for name, layers, heads, h in (("gpt-1.5b", 22, 24, 2304), ("gpt-6.2b", 30, 32, 4096),
                               ("gpt-14.6b", 46, 40, 5120), ("gpt-28.3b", 62, 48, 6144)):
    gpu = "a100"
    ops, edges = [simple("embedding", "embedding", 2 * 1024 * h, fwd=20.0)], []
    prev = "embedding"
    for l in range(layers):
        n = f"layer{l}"
        ops.append(transformer(n, 1024, h, 4 * h, heads, gpu)); edges.append([prev, n]); prev = n
    V, seq = 50257, 1024   # the head is per token: seq rows of h -> V
    f = [t_us(2 * q * seq * h * V, 2 * h * V + 2 * q * seq * (h + V), gpu) for q in SIZES]
    ops.append({"name": "head", "kind": "linear", "shape": [seq, h, V], "fwd": f, "bwd": f,
                "wgrad": f, "act_bytes": 2 * seq * h, "weight_bytes": 2 * h * V, "out_bytes": 0})
    edges.append([prev, "head"])
    write(name, gpu, ops, edges, 128,
          f"Zero Bubble (ICLR'24) Table 3: {name.upper()} = {layers} layers, {heads} heads, hidden {h}, seq 1024; analytic costs")
PY
ls datasets/graphs
