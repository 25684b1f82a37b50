#!/usr/bin/env python3
"""The alpha-beta model of han's distributed training, fitted and checked on this machine.

Reads the measurements bench/bench_scaling.sh makes (OUT/allreduce-*.jsonl,
OUT/train-*.txt, OUT/distinct.json) and prints, as Markdown:
  1. alpha and beta per transport, fitted to MPI_Allreduce times of 2 ranks
     (ring allreduce: t = 2(N-1) alpha + 2(N-1)/N S/beta, so for N = 2: t = 2 alpha + S/beta;
     for small messages recursive doubling, log2(N) (alpha + S/beta), is faster, and the
     model takes the faster of the two);
  2. the model against what it did not see: 4 ranks' allreduce times, and the gradient
     sum per step of 2- and 4-rank training runs (the log's "ms summing");
  3. the extrapolation: time per epoch and efficiency for 8-256 machines on 10/25/100 Gb/s,
     for 1M and 100M IMDB-sized documents, each machine computing 64 documents per step,
     with the sum overlapped with the backward pass (trainer.overlap, the default) and,
     for comparison, after it;
and writes OUT/scaling.svg (efficiency against machines, one line per link speed).
"""
import json
import math
import sys

ALPHA_NET = 25e-6  # s per message on a switched network: assumed, not measured here
LINK_USE = 0.8     # the share of the line rate an allreduce gets


def read_jsonl(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def fit(points):
    """Least squares t = a + b S over points (S bytes, t seconds), sizes >= 64 KB weigh the slope."""
    xs, ys = [p["bytes"] for p in points], [p["seconds"] for p in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    small = [p["seconds"] for p in points if p["bytes"] <= 4096]
    a = sorted(small)[len(small) // 2]  # the latency: the median time of the smallest messages
    return a, b


def allreduce_time(n, size, alpha, beta):
    """The faster of a ring and recursive doubling (Open MPI picks by message size and ranks)."""
    if n == 1:
        return 0.0
    ring = 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / beta
    doubling = math.ceil(math.log2(n)) * (alpha + size / beta)
    return min(ring, doubling)


def parse_stages(path):
    """Each backward stage's share of a step's compute, from a debug log of an overlapped run."""
    ms = None
    for line in open(path).read().splitlines():
        if "backward stages per step" in line:
            ms = [float(part.split(" ms")[0].split()[-1]) for part in line.split("): ")[1].split(",")]
    total = sum(ms)
    return [m / total for m in ms]


def overlapped_exposure(t_c, shares, parts):
    """The sum's time the step still waits for when each part is summed as its stage ends.

    The parts go over the link one after another: the upper layers' when the first stage
    ends, the recurrent weights' and embedding columns' when the second does, the input
    weights' when the pass ends (at t_c); returns when the last arrives, minus t_c."""
    upper, recurrent, last = parts
    first_end, second_end = shares[0] * t_c, (shares[0] + shares[1]) * t_c
    done = first_end + upper
    done = max(done, second_end) + recurrent
    done = max(done, t_c) + last
    return done - t_c


def parse_train(path):
    """(docs/s, MB per step, ms summing per step) from a run's log (the last epoch's lines)."""
    text = open(path).read()
    docs = mb = ms = None
    for line in text.splitlines():
        if "docs/s" in line and "epoch 1/" in line:
            docs = float(line.split(" docs/s")[0].split()[-1])
        if "gradient exchange" in line:
            parts = line.split("per step: ")[1].split(",")
            mb = float(parts[0].split()[0])
            ms = float(parts[1].split()[0])
    return docs, mb, ms


def main(out):
    lines = []
    transports = {}
    for name in ("shm", "tcp"):
        two = [p for p in read_jsonl(f"{out}/allreduce-{name}-2.jsonl")]
        a, b = fit(two)
        transports[name] = (a / 2, 1 / b)
    lines += ["| transport (2 ranks, this machine) | alpha (µs per message) | beta (GB/s) |", "|---|---:|---:|"]
    for name, (alpha, beta) in transports.items():
        lines.append(f"| {name} | {alpha * 1e6:.1f} | {beta / 1e9:.2f} |")
    lines += ["", "| ranks, transport | message | measured ms | model ms | measured / model |", "|---|---:|---:|---:|---:|"]
    for name, (alpha, beta) in transports.items():
        for p in read_jsonl(f"{out}/allreduce-{name}-4.jsonl"):
            if p["bytes"] in (4096, 1048576, 4194304, 16777216):
                model = allreduce_time(4, p["bytes"], alpha, beta)
                lines.append(f"| 4, {name} (oversubscribed) | {p['bytes'] / 1e6:.3f} MB | {p['seconds'] * 1e3:.3f} | "
                             f"{model * 1e3:.3f} | {p['seconds'] / model:.2f} |")
    one_docs, _, _ = parse_train(f"{out}/train-1x2.txt")
    t_c = 64 / one_docs
    lines += ["", "| training run (1 epoch) | MB per step | measured ms summing | model ms | measured / model |",
              "|---|---:|---:|---:|---:|"]
    ratios = {}
    for run, n, name in (("2x1-shm", 2, "shm"), ("2x1-tcp", 2, "tcp"), ("4x1-tcp", 4, "tcp")):
        _, mb, ms = parse_train(f"{out}/train-{run}.txt")
        alpha, beta = transports[name]
        model = allreduce_time(n, mb * 1e6, alpha, beta) * 1e3
        ratios[run] = ms / model
        lines.append(f"| {run.replace('x', ' ranks × ').replace('-', ' thread, ')} | {mb:.2f} | {ms:.2f} | {model:.2f} | "
                     f"{ms / model:.2f} |")
    # Training's exchange also packs and unpacks the gradient: the 2-rank TCP run's ratio
    # (no oversubscription) scales the model's allreduce time in the extrapolation.
    k = ratios["2x1-tcp"]
    distinct = json.load(open(f"{out}/distinct.json"))
    dense, per_word, vocab = distinct["dense_bytes"], distinct["bytes_per_word"], distinct["vocabulary"]

    def size(n):  # gradient bytes of a global batch of 64 n documents
        words = distinct["words_per_batch"].get(str(n))
        if words is None:
            words = vocab
        return dense + per_word * min(words, vocab)

    shares = parse_stages(f"{out}/train-2x1-overlap.txt")
    last_part, recurrent = distinct["input_weight_bytes"], distinct["recurrent_bytes"]

    def step_time(n, s, beta, overlap):
        if not overlap:
            return t_c + k * allreduce_time(n, s, ALPHA_NET, beta)
        upper = dense - last_part - recurrent
        parts = [k * allreduce_time(n, b, ALPHA_NET, beta) for b in (upper, s - dense + recurrent, last_part)]
        return t_c + overlapped_exposure(t_c, shares, parts)

    lines += ["", f"t_c = {t_c * 1e3:.0f} ms per step of 64 documents on one machine (1 process × 2 threads); "
              f"alpha = {ALPHA_NET * 1e6:.0f} µs (assumed); beta = {LINK_USE:.0%} of the line rate; "
              f"the allreduce time × k = {k:.2f} (the 2-rank TCP run's measured / model); the backward stages "
              f"take {shares[0]:.0%}, {shares[1]:.0%} and {shares[2]:.0%} of a step's compute (forward and upper "
              "layers, word recurrence, word input weights; the 2-rank overlapped run).", "",
              "| machines | gradient MB | " + " | ".join(f"{g} Gb/s: 1M docs min, 100M docs h, efficiency (without overlap)" for g in (10, 25, 100)) + " |",
              "|---:|---:|" + "---:|" * 3]
    curves = {g: [] for g in (10, 25, 100)}
    for n in (1, 2, 4, 8, 16, 32, 64, 128, 256):
        s = size(n)
        cells = []
        for g in (10, 25, 100):
            beta = g * 1e9 / 8 * LINK_USE
            step = step_time(n, s, beta, True)
            eff, eff_after = t_c / step, t_c / step_time(n, s, beta, False)
            curves[g].append((n, eff))
            minutes, hours = 1e6 / (64 * n) * step / 60, 1e8 / (64 * n) * step / 3600
            cells.append(f"{minutes:.1f}, {hours:.1f}, {eff:.0%} ({eff_after:.0%})")
        lines.append(f"| {n} | {s / 1e6:.1f} | " + " | ".join(cells) + " |")
    print("\n".join(lines))
    write_svg(f"{out}/scaling.svg", curves)


def write_svg(path, curves):
    w, h, left, bottom, top, right = 480, 300, 50, 40, 15, 90
    def x(n):
        return left + (math.log2(n) / 8) * (w - left - right)
    def y(e):
        return top + (1 - e) * (h - top - bottom)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
             f'<rect width="{w}" height="{h}" fill="white"/>']
    for n in (1, 4, 16, 64, 256):
        parts.append(f'<text x="{x(n):.1f}" y="{h - bottom + 15}" text-anchor="middle">{n}</text>')
        parts.append(f'<line x1="{x(n):.1f}" y1="{top}" x2="{x(n):.1f}" y2="{h - bottom}" stroke="#ddd"/>')
    for e in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text x="{left - 5}" y="{y(e) + 4:.1f}" text-anchor="end">{e:.0%}</text>')
        parts.append(f'<line x1="{left}" y1="{y(e):.1f}" x2="{w - right}" y2="{y(e):.1f}" stroke="#ddd"/>')
    parts.append(f'<text x="{(left + w - right) / 2}" y="{h - 5}" text-anchor="middle">machines (64 documents each per step)</text>')
    parts.append(f'<text x="12" y="{(top + h - bottom) / 2}" transform="rotate(-90 12 {(top + h - bottom) / 2})" '
                 'text-anchor="middle">efficiency</text>')
    for (g, points), colour in zip(curves.items(), ("#d62728", "#1f77b4", "#2ca02c")):
        pts = " ".join(f"{x(n):.1f},{y(e):.1f}" for n, e in points)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        n, e = points[-1]
        parts.append(f'<text x="{x(n) + 5:.1f}" y="{y(e) + 4:.1f}" fill="{colour}">{g} Gb/s</text>')
    parts.append("</svg>")
    open(path, "w").write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
