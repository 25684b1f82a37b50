#!/usr/bin/env python3
"""Side-by-side speed/memory benchmark: han vs the PyTorch HAN reference.

For each data set slice (20news, imdb): alternating han and the reference with identical
settings (E=200, H=50, A=100, batch 64, caps 30x50, vocabulary count >= 5, bucketing,
masking renorm, same thread count), one training epoch each, then prediction of the
dev+test slice. Then han with 1 vs 2 threads, han bucket vs random batching (cost must
follow real tokens), and the roofline (bench/roofline.cpp): the FMA peak, the hot GEMMs,
and han's whole training as a share of the all-core peak. Prints tables (markdown)
and writes the raw records to runs/bench-results.json.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env=None):
    """Runs cmd; returns (stdout, wall seconds, peak RSS MB of that child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"bench: command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    # ru_maxrss of children is the maximum over all children so far: measure each
    # program in a fresh wrapper (see peak_rss) when an exact per-run figure is needed.
    return p.stdout, wall, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024.0


def peak_rss(cmd, env=None):
    """Runs cmd under /usr/bin/python3 -c wrapper to read that one child's peak RSS."""
    wrapper = ("import resource,subprocess,sys,json;"
               "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
               "sys.stderr.write(p.stderr);"
               "print(json.dumps({'rc':p.returncode,'out':p.stdout,"
               "'rss':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024.0}))")
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", wrapper] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    r = json.loads(p.stdout)
    if r["rc"] != 0:
        sys.exit(f"bench: command failed ({r['rc']}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    peak_rss.stderr = p.stderr  # the last command's, for callers that read its log
    return r["out"], wall, r["rss"]


def product_gflops_per_s(log):
    """The rate of matrix-product FLOPs han's training steps executed (its debug log's
    last "GFLOP of matrix products" line): a utilisation figure, unlike a per-token count."""
    rates = re.findall(r"GFLOP of matrix products in [0-9.]+ s \(([0-9.]+) GFLOP/s\)", log)
    if not rates:
        sys.exit("bench: han train logged no GFLOP of matrix products (needs --log-level debug)")
    return float(rates[-1])


def head(src, dst, n):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
        for i, line in enumerate(f):
            if i >= n:
                break
            g.write(line)


def han_train(args, d, threads, strategy="bucket", epochs=1, seed=1):
    cfg = {
        "data": {"train": d["train"], "dev": d["dev"], "test": d["predict"]},
        "tokenizer": {"max_sentences": 30, "max_words": 50, "min_count": 5, "max_vocab": 50000},
        # The HAN alone, like the PyTorch HAN it is timed against (no linear member).
        "model": {"embedding_dim": 200, "word_hidden": 50, "sentence_hidden": 50, "attention_dim": 100, "mask": "renorm",
                  "linear_member": False},
        "batching": {"strategy": strategy, "batch_size": 64},
        "optimizer": {"name": "adam", "lr": 0.001, "clip_norm": 0.0},
        "trainer": {"epochs": epochs, "patience": 0, "seed": seed, "threads": threads},
    }
    out_dir = tempfile.mkdtemp(prefix="han_bench_")
    path = os.path.join(out_dir, "bench_config.json")  # not config.json: train would take the folder for a run
    with open(path, "w") as f:
        json.dump(cfg, f)
    out, wall, rss = peak_rss([args.han, "train", "--config", path, "--output", out_dir, "--log-level", "debug"])
    products = product_gflops_per_s(peak_rss.stderr)
    summary = json.loads(out)
    metrics = [json.loads(l) for l in open(os.path.join(out_dir, "metrics.jsonl"))]
    e = metrics[0]
    train_seconds = e["docs_per_second"] and (len(open(d["train"]).readlines()) / e["docs_per_second"])
    ev_out, _, ev_rss = peak_rss([args.han, "eval", "--json", "--threads", str(threads), "--model",
                                  os.path.join(out_dir, "model.han"), "--data", d["predict"]])
    ev = json.loads(ev_out)
    e2e = han_predict_end_to_end(args, os.path.join(out_dir, "model.han"), d["predict"], threads)
    return {"impl": "han", "load": os.getloadavg()[0], "predict_e2e_docs_per_s": e2e, "threads": threads, "strategy": strategy, "seed": seed,
            "train_tokens_per_s": e["tokens_per_second"], "train_docs_per_s": e["docs_per_second"],
            "train_product_gflops_per_s": products,
            "train_seconds": train_seconds, "padding_fraction": e["padding_fraction"],
            "predict_tokens_per_s": ev["tokens_per_second"], "predict_docs_per_s": ev["docs_per_second"],
            "dev_accuracy": e["dev_accuracy"], "test_accuracy": ev["accuracy"],
            "peak_rss_mb": rss, "predict_peak_rss_mb": ev_rss, "wall_seconds": wall}


# The reference at its best (../shared/bench/README.md): OpenBLAS on its fastest kernel here
# (choose_reference_blas, below), and glibc told to keep freed memory (han tunes its own
# allocator; without these the reference loses about 4x to page faults on these VMs). How its OpenMP threads should
# wait depends on the machine: on a loaded one a spinning thread burns the time slice its
# partner needs (600 20news documents at load 8-9: 2 288 real tokens/s spinning, 16 749
# with OMP_WAIT_POLICY=PASSIVE), on an idle one sleeping costs a wake-up per parallel region
# (3000 20news documents, load 1: 37 744 with the default policy, 28 015 passive). So every
# reference run is made both ways and each figure is the better of the two.
REFERENCE_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "4294967296",
                    "MALLOC_TOP_PAD_": "268435456"}
REFERENCE_WAIT_POLICIES = ("default", "PASSIVE")


def reference_env(wait_policy):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    env.pop("OMP_WAIT_POLICY", None)
    env.update(REFERENCE_MALLOC)
    if REFERENCE_BLAS["coretype"] != "auto":
        env["OPENBLAS_CORETYPE"] = REFERENCE_BLAS["coretype"]
    if wait_policy != "default":
        env["OMP_WAIT_POLICY"] = wait_policy
    return env


# OpenBLAS picks its kernel from the CPU it finds, and a release older than the CPU can pick
# a slow one: Debian 12's 0.3.21 on a Sapphire Rapids VM ran 1024^3 at about 30 GFLOP/s on
# its own choice and over 200 with a core type named. So the bench times torch.mm at the
# HAN's shapes under its own choice and each named AVX-512/AVX2 kernel, and runs the
# reference with the fastest (REFERENCE_BLAS, reported with the results).
REFERENCE_CORETYPES = ("auto", "SapphireRapids", "Cooperlake", "SkylakeX", "Haswell")
REFERENCE_BLAS = {"coretype": "auto", "probe": {}}
BLAS_PROBE = """
import time, torch
torch.set_num_threads(2)
total = 0.0
for m, k, n in ((64, 200, 150), (64, 50, 150), (1024, 200, 150), (1024, 1024, 1024)):
    a, b = torch.randn(m, k), torch.randn(k, n)
    for _ in range(5):
        a @ b
    reps, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.3:
        a @ b
        reps += 1
    total += (time.perf_counter() - start) / reps / (2.0 * m * k * n)
print(4 / total / 1e9)
"""


def choose_reference_blas(choice="fastest"):
    """Sets REFERENCE_BLAS to the core type whose GEMM at the probe's shapes is fastest
    (GFLOP/s: the harmonic mean over the shapes, on 2 threads), or to `choice` when it names
    one ("auto": OpenBLAS's own, as ../shared/bench/README.md runs it)."""
    for coretype in REFERENCE_CORETYPES if choice == "fastest" else (choice,):
        REFERENCE_BLAS["coretype"] = coretype
        p = subprocess.run(["/usr/bin/python3", "-c", BLAS_PROBE], env=reference_env("default"), capture_output=True,
                           text=True)
        try:
            REFERENCE_BLAS["probe"][coretype] = float(p.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            REFERENCE_BLAS["probe"][coretype] = 0.0  # the probe failed under this core type
    REFERENCE_BLAS["coretype"] = max(REFERENCE_BLAS["probe"], key=REFERENCE_BLAS["probe"].get)


def han_predict_end_to_end(args, model, data, threads):
    """Documents per second of `han predict` on stdin as a user runs it: process start to exit,
    reading, tokenizing, loading the model and writing the answers included."""
    n = sum(1 for _ in open(data, encoding="utf-8"))
    with open(data, "rb") as stdin:
        t = time.perf_counter()
        p = subprocess.run([args.han, "predict", "--model", model, "--threads", str(threads), "--data-format", "jsonl"],
                           stdin=stdin,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"bench: han predict failed: {p.stderr.decode()[-2000:]}")
    return n / wall


def torch_train(args, d, threads, seed=1):
    """The reference run with each OpenMP wait policy; every speed figure the better one."""
    runs = [torch_train_once(args, d, threads, seed, policy) for policy in REFERENCE_WAIT_POLICIES]
    best = dict(runs[0])
    for key in ("train_tokens_per_s", "train_docs_per_s", "predict_tokens_per_s", "predict_docs_per_s"):
        best[key] = max(r[key] for r in runs)
    for key in ("train_seconds", "peak_rss_mb", "wall_seconds"):
        best[key] = min(r[key] for r in runs)
    best["by_wait_policy"] = {r["wait_policy"]: {k: r[k] for k in ("train_tokens_per_s", "predict_docs_per_s")}
                              for r in runs}
    return best


def torch_train_once(args, d, threads, seed, wait_policy):
    env = reference_env(wait_policy)
    cmd = ["/usr/bin/python3", os.path.join(args.shared, "bench", "han_torch.py"), "--train", d["train"],
           "--dev", d["dev"], "--test", d["predict"], "--mask", "renorm", "--pack", "--bucket", "--epochs", "1",
           "--threads", str(threads), "--emb", "200", "--hid", "50", "--batch", "64", "--max-sents", "30",
           "--max-words", "50", "--min-count", "5", "--seed", str(seed)]
    out, wall, rss = peak_rss(cmd, env)
    recs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    ep = [r for r in recs if r["type"] == "epoch"][0]
    s = [r for r in recs if r["type"] == "summary"][0]
    return {"impl": "pytorch", "load": os.getloadavg()[0], "threads": threads, "strategy": "bucket", "seed": seed,
            "wait_policy": wait_policy,
            "train_tokens_per_s": ep["train_tokens_per_s"], "train_docs_per_s": ep["train_docs_per_s"],
            "train_seconds": ep["train_secs"], "padding_fraction": ep["pad_fraction"],
            "predict_tokens_per_s": s["predict_tokens_per_s"], "predict_docs_per_s": s["predict_docs_per_s"],
            "dev_accuracy": ep["dev_acc"], "test_accuracy": s["test_acc"],
            "peak_rss_mb": rss, "wall_seconds": wall}


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def per_seed(rows, key):
    """One value per seed (repetitions of a seed are the same run again)."""
    return list({r["seed"]: r[key] for r in rows}.values())


def mean_sd(xs):
    sd = statistics.stdev(xs) if len(xs) > 1 else float("nan")
    return f"{statistics.mean(xs):.3f} ± {sd:.3f} (n={len(xs)})"


def welch(a, b):
    """Difference of means and its Welch 95% interval (t quantile by table)."""
    diff = statistics.mean(a) - statistics.mean(b)
    if len(a) < 2 or len(b) < 2:
        return diff, float("nan"), float("nan")
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = (va + vb) ** 0.5
    dof = (va + vb) ** 2 / ((va ** 2 / (len(a) - 1) if va else 0) + (vb ** 2 / (len(b) - 1) if vb else 0) or 1e-300)
    t975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
            12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}
    k = max(d for d in t975 if d <= max(1, int(dof)))
    return diff, diff - t975[k] * se, diff + t975[k] * se


def hyperfine_median(commands, runs=30):
    """Median wall seconds of each shell command, from hyperfine (warm cache, 3 warm-up runs)."""
    out = tempfile.mktemp(suffix=".json")
    subprocess.run(["hyperfine", "--shell=none", "--warmup", "3", "--runs", str(runs), "--export-json", out] + commands,
                   check=True, capture_output=True)
    return [r["median"] for r in json.load(open(out))["results"]]


def startup(args, tmp):
    """One-line prediction with a model of the whole 20news training split (E=200, the
    paper's other sizes, the default linear member, one epoch) against one with a model of
    about 1 MB (the bundled data, E=64, min_count 20, the HAN alone) and fastText's own
    one-line prediction; the peak RSS vs the file size."""
    src = os.path.join(args.shared, "data", "20news")
    cfg = {"data": {"train": os.path.join(src, "train.jsonl"), "dev": os.path.join(src, "dev.jsonl")},
           "tokenizer": {"max_sentences": 30, "max_words": 50, "min_count": 2, "max_vocab": 50000},
           "model": {"embedding_dim": 200, "word_hidden": 50, "sentence_hidden": 50, "attention_dim": 100},
           "trainer": {"epochs": 1, "patience": 0, "threads": 2}}
    small_cfg = {"data": {"train": os.path.join(ROOT, "data", "train.jsonl"), "dev": os.path.join(ROOT, "data", "dev.jsonl")},
                 "tokenizer": {"min_count": 20}, "model": {"embedding_dim": 64, "linear_member": False},
                 "trainer": {"epochs": 1, "patience": 0, "threads": 2}}
    models = {}
    for name, c in (("startup", cfg), ("startup_small", small_cfg)):
        if args.startup_from:  # an earlier run's models (training the large one takes about 20 minutes)
            models[name] = os.path.join(args.startup_from, name, "model.han")
            continue
        with open(os.path.join(tmp, name + ".json"), "w") as f:
            json.dump(c, f)
        run([args.han, "train", "--config", os.path.join(tmp, name + ".json"), "--output", os.path.join(tmp, name), "--quiet"])
        models[name] = os.path.join(tmp, name, "model.han")
    if not args.startup_from:
        print(f"bench: the start-up models are in {tmp} (--startup-from {tmp} reuses them)", file=sys.stderr)
    model = models["startup"]
    info = json.loads(run([args.han, "info", "--json", "--model", model])[0])
    ft_train = os.path.join(tmp, "startup.ft.txt")
    with open(os.path.join(src, "train.jsonl"), encoding="utf-8") as f, open(ft_train, "w", encoding="utf-8") as g:
        for line in f:
            r = json.loads(line)
            g.write("__label__" + r["label"] + " " + " ".join(r["text"].split()) + "\n")
    ft_model = os.path.join(tmp, "startup_ft")
    run(["fasttext", "supervised", "-input", ft_train, "-output", ft_model, "-epoch", "1", "-dim", "64"])
    one = os.path.join(tmp, "one_line.txt")
    with open(one, "w") as f:
        f.write("the new graphics card renders the scene faster than the old one\n")
    han_cmd = f"{args.han} predict --model {model} {one}"
    small_cmd = f"{args.han} predict --model {models['startup_small']} {one}"
    ft_cmd = f"fasttext predict {ft_model}.bin {one}"
    load = os.getloadavg()[0]
    han_s, small_s, ft_s, version_s = hyperfine_median([han_cmd, small_cmd, ft_cmd, f"{args.han} --version"])
    _, _, rss = peak_rss(han_cmd.split())
    # The process itself (binary, libraries, runtime), read by /usr/bin/time: peak_rss's
    # wrapper would count the forked Python image (about 10 MB) that precedes exec.
    t = subprocess.run(["/usr/bin/time", "-f", "%M", args.han, "--version"], capture_output=True, text=True)
    version_rss = int(t.stderr.strip().splitlines()[-1]) / 1024 if t.returncode == 0 else float("nan")
    return {"load": [load, os.getloadavg()[0]], "han_seconds": han_s, "han_small_seconds": small_s,
            "small_model_mb": os.path.getsize(models["startup_small"]) / 2**20,
            "fasttext_seconds": ft_s, "han_version_seconds": version_s, "han_peak_rss_mb": rss,
            "han_version_peak_rss_mb": version_rss,
            "model_mb": os.path.getsize(model) / 2**20, "fasttext_model_mb": os.path.getsize(ft_model + ".bin") / 2**20,
            "vocabulary": info.get("vocabulary_size")}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--reps", type=int, default=2, help="alternating repetitions per implementation")
    ap.add_argument("--quick", action="store_true", help="smaller slices (a smoke run)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N for the accuracy comparison")
    ap.add_argument("--sets", default="20news,imdb")
    ap.add_argument("--only-startup", action="store_true", help="only the one-line prediction (no references but fastText)")
    ap.add_argument("--startup-from", metavar="DIR",
                    help="the start-up models of an earlier run (DIR/startup/model.han, DIR/startup_small/model.han) "
                         "instead of training them; a file keeps the layout of the han that wrote it (its chunk "
                         "size, say), so reuse only models written by the build under test")
    ap.add_argument("--reference-coretype", default="fastest", choices=("fastest",) + REFERENCE_CORETYPES,
                    help="the reference's OpenBLAS kernel: the fastest of the probe's (default), or one of them "
                         "(auto: unset, OpenBLAS's own choice)")
    args = ap.parse_args()
    args.han = os.path.join(ROOT, args.build, "han")
    n_train, n_predict = (600, 300) if args.quick else (3000, 1500)
    tmp = tempfile.mkdtemp(prefix="han_bench_data_")
    results = {"slices": {"train": n_train, "predict": n_predict}, "sets": {}}

    if args.only_startup:
        print_startup(startup(args, tmp))
        return
    choose_reference_blas(args.reference_coretype)
    print("bench: the reference's OpenBLAS core type: " + REFERENCE_BLAS["coretype"] + " (GFLOP/s at the HAN's shapes: " +
          ", ".join(f"{k} {v:.1f}" for k, v in REFERENCE_BLAS["probe"].items()) + ")", file=sys.stderr)
    results["reference_blas"] = REFERENCE_BLAS
    gemm = json.loads(subprocess.run([os.path.join(ROOT, args.build, "han_bench_roofline"), "--json"], capture_output=True,
                                     text=True, check=True).stdout)
    results["gemm"] = gemm
    results["startup"] = startup(args, tmp)

    for name in args.sets.split(","):
        src = os.path.join(args.shared, "data", name)
        d = {k: os.path.join(tmp, f"{name}.{k}.jsonl") for k in ("train", "dev", "predict")}
        head(os.path.join(src, "train.jsonl"), d["train"], n_train)
        head(os.path.join(src, "dev.jsonl"), d["dev"], n_predict // 2)
        # prediction slice: dev + test halves
        with open(d["predict"], "w", encoding="utf-8") as g:
            for split in ("dev", "test"):
                with open(os.path.join(src, f"{split}.jsonl"), encoding="utf-8") as f:
                    for i, line in enumerate(f):
                        if i >= n_predict // 2:
                            break
                        g.write(line)
        rows = {"han": [], "pytorch": []}
        scaling, random_rows = [], []
        for rep in range(args.reps):  # alternating
            rows["han"].append(han_train(args, d, 2))
            rows["pytorch"].append(torch_train(args, d, 2))
            scaling.append(han_train(args, d, 1))
            random_rows.append(han_train(args, d, 2, "random"))
        # Accuracy after one epoch varies with the seed (47 updates on 3000 documents): more
        # seeds for both, so "within noise" is a statement about means and spreads.
        for seed in range(2, args.seeds + 1):
            rows["han"].append(han_train(args, d, 2, seed=seed))
            rows["pytorch"].append(torch_train(args, d, 2, seed=seed))
        results["sets"][name] = {"han": rows["han"], "pytorch": rows["pytorch"], "han_1_thread": scaling,
                                 "han_random": random_rows}

    os.makedirs(os.path.join(ROOT, "runs"), exist_ok=True)
    with open(os.path.join(ROOT, "runs", "bench-results.json"), "w") as f:
        json.dump(results, f, indent=1)

    loads = [r["load"] for s in results["sets"].values() for rows in s.values() for r in rows]
    print(f"\nLoad average (1 min, `uptime`) as each run ended: {min(loads):.1f}-{max(loads):.1f} "
          f"(2 cores shared with other jobs: compare within a run, as ratios).")
    print("\nThe PyTorch reference ran with " + " ".join(f"{k}={v}" for k, v in REFERENCE_MALLOC.items()) +
          " and OPENBLAS_L2_SIZE unset, OPENBLAS_CORETYPE " +
          ("unset" if REFERENCE_BLAS["coretype"] == "auto" else "=" + REFERENCE_BLAS["coretype"]) +
          " (GFLOP/s at the HAN's shapes: " + ", ".join(f"{k} {v:.1f}" for k, v in REFERENCE_BLAS["probe"].items()) +
          " GFLOP/s; ../shared/bench/README.md),"
          " each run made with OMP_WAIT_POLICY unset and =PASSIVE, each figure the better of the two.")
    for name in args.sets.split(","):
        ref = results["sets"][name]["pytorch"]
        by = {p: statistics.median(r["by_wait_policy"][p]["train_tokens_per_s"] for r in ref)
              for p in REFERENCE_WAIT_POLICIES}
        print(f"  {name}: reference train tokens/s by wait policy (medians): " +
              ", ".join(f"{p} {v:.0f}" for p, v in by.items()))
    print(f"\nSlices: first {n_train} train documents; prediction on {n_predict} dev+test documents. "
          f"2 threads each unless stated; speed: medians over {args.reps} alternating rounds (han 2 threads, "
          f"PyTorch, han 1 thread, han random batches) and the seed runs.\n")
    print("| set | metric | han | PyTorch | han / PyTorch |")
    print("|---|---|---:|---:|---:|")
    for name, r in results["sets"].items():
        h, t = r["han"], r["pytorch"]
        for key, label, fmt in [("train_tokens_per_s", "train real tokens/s", "{:.0f}"),
                                ("train_docs_per_s", "train docs/s", "{:.1f}"),
                                ("predict_tokens_per_s", "predict real tokens/s", "{:.0f}"),
                                ("predict_docs_per_s", "predict docs/s", "{:.1f}"),
                                ("peak_rss_mb", "peak RSS training (MB)", "{:.0f}")]:
            a, b = med(h, key), med(t, key)
            print(f"| {name} | {label} | {fmt.format(a)} | {fmt.format(b)} | {a / b:.2f} |")
        a, b = med(h, "predict_e2e_docs_per_s"), med(t, "predict_docs_per_s")
        print(f"| {name} | predict docs/s: `han predict` on stdin, whole process, vs the reference's evaluation loop "
              f"| {a:.1f} | {b:.1f} | {a / b:.2f} |")
    print(f"\nAccuracy after one epoch, mean ± sd over seeds 1..{args.seeds}; difference han − PyTorch "
          "with a Welch 95% interval (an interval containing 0: within noise).\n")
    print("| set | split | han | PyTorch | han − PyTorch [95% CI] |")
    print("|---|---|---|---|---|")
    for name, r in results["sets"].items():
        for key, label in [("dev_accuracy", "dev"), ("test_accuracy", "dev+test")]:
            a, b = per_seed(r["han"], key), per_seed(r["pytorch"], key)
            diff, lo, hi = welch(a, b)
            print(f"| {name} | {label} | {mean_sd(a)} | {mean_sd(b)} | {diff:+.3f} [{lo:+.3f}, {hi:+.3f}] |")
    print("\n| set | han 2 threads / 1 thread (train tokens/s) | bucket: padding, s/epoch, s per M real tokens | random: padding, s/epoch, s per M real tokens |")
    print("|---|---:|---|---|")
    for name, r in results["sets"].items():
        bucket = [x for x in r["han"] if x["seed"] == 1]  # the same runs as the 1-thread and random ones
        two, one = med(bucket, "train_tokens_per_s"), med(r["han_1_thread"], "train_tokens_per_s")
        cells = []
        for runs in (bucket, r["han_random"]):
            cells.append(f"{med(runs, 'padding_fraction'):.2f}, {med(runs, 'train_seconds'):.1f}, "
                         f"{1e6 / med(runs, 'train_tokens_per_s'):.2f}")
        print(f"| {name} | {two / one:.2f} | {cells[0]} | {cells[1]} |")
    print_startup(results["startup"])
    print_roofline(gemm, results)


def print_startup(st):
    print(f"\nStart-up: a one-line prediction, medians of 30 runs (hyperfine) with a model of the whole 20news "
          f"training split ({st['vocabulary']} words, {st['model_mb']:.1f} MB; fastText's {st['fasttext_model_mb']:.1f} MB): "
          f"han {1000 * st['han_seconds']:.1f} ms, with a {st['small_model_mb']:.1f} MB model {1000 * st['han_small_seconds']:.1f} ms "
          f"(+{1000 * (st['han_seconds'] - st['han_small_seconds']):.1f} ms for the large one), "
          f"fastText {1000 * st['fasttext_seconds']:.1f} ms "
          f"(han / fastText {st['han_seconds'] / st['fasttext_seconds']:.2f}); `han --version` "
          f"{1000 * st['han_version_seconds']:.1f} ms; han's peak RSS {st['han_peak_rss_mb']:.1f} MB with the "
          f"{st['model_mb']:.1f} MB model, `han --version` alone {st['han_version_peak_rss_mb']:.1f} MB "
          f"(load {st['load'][0]:.1f} before, "
          f"{st['load'][1]:.1f} after).")


def print_roofline(g, results):
    print(f"\nRoofline (bench/roofline.cpp, same run; GEMM {g['gemm']}, kernels {g['kernels']}): FP32 FMA peak "
          f"{g['peak_gflops_1_core']:.1f} GFLOP/s on 1 core, {g['peak_gflops_all_cores']:.1f} on {g['cores']}.\n")
    print("| kernel | pass | M x K x N | GFLOP/s (1 thread) | % of 1-core peak | Eigen GFLOP/s | ratio |")
    print("|---|---|---|---:|---:|---:|---:|")
    for p in g["products"]:
        print(f"| {p['kernel']} | {p['pass']} | {p['shape']} | {p['gflops']:.1f} | "
              f"{100 * p['gflops'] / g['peak_gflops_1_core']:.0f} % | {p['eigen_gflops']:.1f} | {p['gflops'] / p['eigen_gflops']:.2f} |")
    for key, label in [("bigru_training_gflops", "training"), ("bigru_prediction_gflops", "prediction")]:
        print(f"| word biGRU ({g['bigru_tokens']} tokens) | {label} | | {g[key]:.1f} | "
              f"{100 * g[key] / g['peak_gflops_1_core']:.0f} % | | |")
    print(f"\nWhole training, 2 threads: the FLOPs of the matrix products its steps executed (han's debug log), "
          f"per second, against the all-core peak; and real tokens/s x {g['training_flop_per_token']:.0f} FLOP per "
          "token (word level), the work a per-token implementation would do for the same tokens (han projects each "
          "distinct word of a shard once, so it executes fewer).")
    for name, r in results["sets"].items():
        done = med(r["han"], "train_product_gflops_per_s")
        rate = med(r["han"], "train_tokens_per_s") * g["training_flop_per_token"] / 1e9
        print(f"  {name}: executed {done:.1f} GFLOP/s = {100 * done / g['peak_gflops_all_cores']:.0f} % of the peak; "
              f"per-token equivalent {rate:.1f} GFLOP/s = {100 * rate / g['peak_gflops_all_cores']:.0f} %")

if __name__ == "__main__":
    main()
