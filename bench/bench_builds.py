#!/usr/bin/env python3
"""Speed of the native build against the portable build with each kernel variant, in one run.

Each round trains one epoch on the bundled IMDB slice (data/train.jsonl, the paper's sizes:
E=200, H=50, A=100, batch 64, caps 30x50, 2 threads) and predicts data/test.jsonl
(`han eval`'s timed region), with: the native build, the portable build as it picks its
kernels, and the portable build forced to each variant this CPU runs (HAN_CPU). The order
rotates from round to round; speeds are medians over the rounds, ratios against native.

Usage: bench/bench_builds.py [--native build] [--portable build-portable] [--reps 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env_cpu=None):
    env = dict(os.environ)
    env.pop("HAN_CPU", None)
    if env_cpu:
        env["HAN_CPU"] = env_cpu
    return subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout


def one_round(han, cpu):
    cfg = {
        "data": {"train": os.path.join(ROOT, "data/train.jsonl")},
        "tokenizer": {"max_sentences": 30, "max_words": 50, "min_count": 5},
        "model": {"embedding_dim": 200, "word_hidden": 50, "sentence_hidden": 50, "attention_dim": 100},
        "batching": {"batch_size": 64},
        "trainer": {"epochs": 1, "patience": 0, "threads": 2},
    }
    with tempfile.TemporaryDirectory(prefix="han_bench_builds_") as out:
        path = os.path.join(out, "bench_config.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        run([han, "train", "--quiet", "--config", path, "--output", out], cpu)
        epoch = json.loads(open(os.path.join(out, "metrics.jsonl")).readline())
        ev = json.loads(run([han, "eval", "--json", "--threads", "2", "--model", os.path.join(out, "model.han"),
                             "--data", os.path.join(ROOT, "data/test.jsonl")], cpu))
    return {"train": epoch["tokens_per_second"], "predict": ev["tokens_per_second"]}


def variants(portable):
    out = [("portable, picked by itself", None)]
    for v in ("avx512", "avx2", "generic"):
        probe = subprocess.run([portable, "--version"], env=dict(os.environ, HAN_CPU=v), capture_output=True, text=True)
        if probe.returncode == 0:
            out.append((f"portable, HAN_CPU={v}", v))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--native", default="build")
    ap.add_argument("--portable", default="build-portable")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    native = os.path.join(args.native, "han")
    portable = os.path.join(args.portable, "han")
    runs = [("native (-march=native)", native, None)] + [(n, portable, v) for n, v in variants(portable)]
    print(run([native, "--version"]).strip())
    print(run([portable, "--version"]).strip())
    results = {name: [] for name, _, _ in runs}
    for rep in range(args.reps):
        order = runs[rep % len(runs):] + runs[:rep % len(runs)]
        for name, han, cpu in order:
            results[name].append(one_round(han, cpu))
    base = {k: statistics.median(r[k] for r in results[runs[0][0]]) for k in ("train", "predict")}
    print(f"\n{args.reps} rounds, medians; tokens/s (real tokens); ratio = build / native\n")
    print("| build | train tokens/s | ratio | predict tokens/s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, _, _ in runs:
        m = {k: statistics.median(r[k] for r in results[name]) for k in ("train", "predict")}
        print(f"| {name} | {m['train']:.0f} | {m['train'] / base['train']:.2f} | {m['predict']:.0f} | "
              f"{m['predict'] / base['predict']:.2f} |")


if __name__ == "__main__":
    main()
