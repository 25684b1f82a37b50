#!/usr/bin/env python3
"""Memory and start-up time of han train as the corpus grows (README: Big corpora).

For each size N a synthetic corpus of N documents is made by resampling the documents of
--source with replacement (seeded; the shared IMDB training reviews by default). Each run
is `han train` at the given settings with --log-level debug; once the first training step
is logged, the script lets it train for --train-seconds, reads the process's peak RSS
(VmHWM in /proc/PID/status), stops it with SIGTERM and records:
  start   seconds from process start to the first training step (reading the data)
  peak    peak RSS in MB up to then (reading + the first steps)
  tok/s   real tokens per second over the training window
Each size runs three ways: from the text, from the text writing data.cache, and from the
cache. --base HAN adds runs of another binary (e.g. an older build) from the text.
Finally peak RSS is fitted as base + slope x kept tokens (least squares over the sizes).

--epoch-sizes N,M,... then trains one whole epoch from the cache at each of those sizes,
in the order given, and records the whole run's peak RSS (getrusage of the child) and the
tokens/s over the whole epoch, so a large corpus can be compared with small ones measured
in the same call (e.g. --epoch-sizes 10000,1000000,10000 to see the load change).

  bench/bench_corpus.py --sizes 10000,100000,1000000 [--base /path/to/old/han]
  bench/bench_corpus.py --sizes "" --epoch-sizes 10000,1000000,10000 --set trainer.threads=1
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

STEP = re.compile(r"epoch 1 batch \d+/\d+ \(step (\d+)\): .*?, (\d+) real tokens")
KEPT = re.compile(r"corpus: (\d+) train")


def make_corpus(source, n, path):
    if os.path.exists(path) and sum(1 for _ in open(path, "rb")) == n:
        return
    with open(source, encoding="utf-8") as f:
        lines = [l for l in f if l.strip()]
    rng = random.Random(1)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        for _ in range(n):
            out.write(rng.choice(lines))
    os.replace(tmp, path)


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run_once(han, config, settings, train_seconds, output):
    """Starts han train, waits for the first step, trains train_seconds, stops it."""
    cmd = [han, "train", "--config", config, "--output", output, "--overwrite", "--log-level", "debug"]
    for s in settings:
        cmd += ["--set", s]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    first = None
    tokens = 0
    window_end = None
    peak = float("nan")
    for line in proc.stderr:
        m = STEP.search(line)
        if not m:
            continue
        now = time.monotonic()
        if first is None:
            first = now
            continue  # the window starts after the first step
        tokens += int(m.group(2))
        if now - first >= train_seconds:
            window_end = now
            peak = peak_rss_mb(proc.pid)
            proc.send_signal(signal.SIGTERM)
            break
    if window_end is None:  # the epoch ended before the window did
        window_end = time.monotonic()
    for _ in proc.stderr:
        pass
    proc.wait()
    if first is None:
        sys.exit(f"han train produced no training step: {' '.join(cmd)}")
    if peak != peak:  # finished on its own: its peak is the whole run's
        peak = float("nan")
    return {"start": first - start, "peak_mb": peak, "tokens_per_s": tokens / max(window_end - first, 1e-9)}


def whole_epoch(han, config, settings, output):
    """Trains one whole epoch; peak RSS of the whole run and tokens/s over all its steps."""
    cmd = [han, "train", "--config", config, "--output", output, "--overwrite", "--log-level", "debug"]
    for s in settings:
        cmd += ["--set", s]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    first = last = None
    tokens = steps = 0
    for line in proc.stderr:
        m = STEP.search(line)
        if m:
            last = time.monotonic()
            first = first or last
            tokens += int(m.group(2))
            steps += 1
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0 or first is None:
        sys.exit(f"han train failed (status {status}): {' '.join(cmd)}")
    return {"start": first - start, "epoch_s": last - first, "steps": steps, "tokens": tokens,
            "peak_mb": usage.ru_maxrss / 1024, "tokens_per_s": tokens / max(last - first, 1e-9),
            "cpu_s": usage.ru_utime + usage.ru_stime}


def kept_tokens(han, corpus, config, settings, work):
    """Tokens of train as han keeps them (from han prepare's summary)."""
    cache = os.path.join(work, "count.cache")
    cmd = [han, "prepare", "--config", config, "--cache", cache, "--quiet", "--set", "data.train=" + corpus]
    for s in settings:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    os.remove(cache)
    return json.loads(out)["tokens"]


def fit(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else float("nan")
    return my - slope * mx, slope


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--han", default=os.path.join(here, "..", "build", "han"))
    p.add_argument("--base", help="another han binary to run from the text too (e.g. an older build)")
    p.add_argument("--source", default=os.path.join(here, "..", "..", "shared", "data", "imdb", "train.jsonl"))
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--work", default="/tmp/han-bench-corpus")
    p.add_argument("--train-seconds", type=float, default=30)
    p.add_argument("--epoch-sizes", default="", help="sizes to train one whole epoch from the cache")
    p.add_argument("--set", action="append", default=[], help="config override for every run (key=value)")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    config = os.path.join(a.work, "config.json")
    with open(config, "w") as f:
        json.dump({"data": {"train": "", "format": "jsonl"}, "trainer": {"epochs": 1, "patience": 0}}, f)
    print(f"# load average at start: {os.getloadavg()[0]:.1f}; settings: defaults {' '.join(a.set)}")
    print("docs\tkept_tokens\tbinary\thow\tstart_s\tpeak_MB\ttokens_per_s")
    fits = {}
    for n in [int(s) for s in a.sizes.split(",") if s]:
        corpus = os.path.join(a.work, f"docs-{n}.jsonl")
        make_corpus(a.source, n, corpus)
        settings = ["data.train=" + corpus] + a.set
        tokens = kept_tokens(a.han, corpus, config, a.set, a.work)
        cache = os.path.join(a.work, f"docs-{n}.cache")
        if os.path.exists(cache):
            os.remove(cache)
        runs = [("han", a.han, "text", settings), ("han", a.han, "text, writing cache", settings + ["data.cache=" + cache]),
                ("han", a.han, "cache", settings + ["data.cache=" + cache])]
        if a.base:
            runs.append(("base", a.base, "text", settings))
        for name, binary, how, s in runs:
            r = run_once(binary, config, s, a.train_seconds, os.path.join(a.work, "run"))
            print(f"{n}\t{tokens}\t{name}\t{how}\t{r['start']:.2f}\t{r['peak_mb']:.0f}\t{r['tokens_per_s']:.0f}", flush=True)
            fits.setdefault((name, how), []).append((tokens, r["peak_mb"], n))
    if a.epoch_sizes:
        print("docs\tkept_tokens\tsteps\tstart_s\tepoch_s\tpeak_MB\ttokens_per_s\tcpu_s\tload_after")
    for n in [int(s) for s in a.epoch_sizes.split(",") if s]:
        corpus = os.path.join(a.work, f"docs-{n}.jsonl")
        make_corpus(a.source, n, corpus)
        cache = os.path.join(a.work, f"docs-{n}.cache")
        r = whole_epoch(a.han, config, ["data.train=" + corpus, "data.cache=" + cache] + a.set,
                        os.path.join(a.work, "run"))
        print(f"{n}\t{r['tokens']}\t{r['steps']}\t{r['start']:.1f}\t{r['epoch_s']:.0f}\t{r['peak_mb']:.0f}\t"
              f"{r['tokens_per_s']:.0f}\t{r['cpu_s']:.0f}\t{os.getloadavg()[0]:.1f}", flush=True)
    print(f"# load average at end: {os.getloadavg()[0]:.1f}")
    for (name, how), pts in fits.items():
        if len(pts) < 2:
            continue
        base, slope = fit([(t, mb * 2**20) for t, mb, _ in pts])
        docs_base, docs_slope = fit([(d, mb * 2**20) for _, mb, d in pts])
        print(f"# {name} from {how}: peak RSS = {base / 2**20:.0f} MB + {slope:.2f} bytes per kept token "
              f"({docs_slope / 1024:.2f} KB per document)")


if __name__ == "__main__":
    main()
