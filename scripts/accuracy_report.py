#!/usr/bin/env python3
"""The report of scripts/accuracy.sh: a Markdown table and a plot of test score against training time.

Usage: /usr/bin/python3 scripts/accuracy_report.py OUT --configs NAME... --corpora CORPUS...
Reads OUT/<config>/<corpus>/seed*.json (han train's summaries plus wall_seconds) and
OUT/baselines/<corpus>.jsonl and <corpus>.pytorch_han.jsonl; writes OUT/accuracy.md (also printed)
and OUT/accuracy.svg (one panel per corpus; time on a log axis).
"""
import argparse
import glob
import json
import os
import statistics

# Each task's score in han's summary and in the baselines' lines; RMSE is lower-better.
METRIC = {"single": ("accuracy", "accuracy"), "multilabel": ("micro_f1", "micro-F1"), "regression": ("rmse", "RMSE")}
TASK = {"reuters21578": "multilabel", "imdb-rating": "regression"}


def han_rows(out, config, corpus, key):
    runs = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/{config}/{corpus}/seed*.json"))]
    if not runs:
        return None
    scores = [r["test"][key] for r in runs]
    return {"system": f"han, {config}", "scores": scores, "seconds": statistics.mean(r["wall_seconds"] for r in runs)}


def baseline_rows(out, corpus, key):
    rows = []
    for name in (f"{corpus}.jsonl", f"{corpus}.pytorch_han.jsonl"):
        path = f"{out}/baselines/{name}"
        if not os.path.exists(path):
            continue
        for b in map(json.loads, filter(str.strip, open(path))):
            score = b.get("test_acc", b.get(key))
            if "tfidf_fit_secs" in b:  # scikit-learn: the vectoriser and the fit at the chosen C
                seconds = b["tfidf_fit_secs"] + b["train_secs"]
            else:
                seconds = b.get("train_secs", b.get("wall_secs", b.get("seconds")))
            rows.append({"system": b["method"], "scores": [score], "seconds": seconds})
    return rows


def cell(scores):
    if len(scores) == 1:
        return "%.4f" % scores[0]
    return "%.4f ± %.4f" % (statistics.mean(scores), statistics.stdev(scores))


def seconds(s):
    return "%.1f" % s if s < 10 else "%.0f" % s


def table(out, configs, corpora):
    lines, panels = [], []
    for corpus in corpora:
        task = TASK.get(corpus, "single")
        key, label = METRIC[task]
        rows = baseline_rows(out, corpus, key)
        rows += [r for r in (han_rows(out, c, corpus, key) for c in configs) if r]
        lines += [f"### {corpus} (test {label})", "", "| system | test " + label + " | runs | training s |",
                  "|---|---:|---:|---:|"]
        lines += ["| %s | %s | %d | %s |" % (r["system"], cell(r["scores"]), len(r["scores"]), seconds(r["seconds"]))
                  for r in rows]
        lines.append("")
        panels.append((corpus, label, rows))
    return "\n".join(lines), panels


# The plot's names for the baselines' method ids; han's rows keep theirs ("han, <config>").
SHOWN = {"tfidf12-linearsvc": "TF-IDF + LinearSVC", "fasttext-tuned": "fastText", "pytorch-han": "PyTorch HAN",
         "tfidf12-ovr-logreg": "TF-IDF + one-vs-rest LR", "tfidf12-ridge": "TF-IDF + ridge"}


def plot(panels, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = min(3, len(panels))
    rows_of_panels = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows_of_panels, cols, figsize=(4.2 * cols, 3.6 * rows_of_panels), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    systems = sorted({r["system"] for _, _, rows in panels for r in rows})
    colour = {name: "C%d" % (i % 10) for i, name in enumerate(systems)}  # one colour per system in every panel
    for ax, (corpus, label, rows) in zip(axes.flat, panels):
        for r in rows:
            mean = statistics.mean(r["scores"])
            sd = statistics.stdev(r["scores"]) if len(r["scores"]) > 1 else 0
            ax.errorbar([r["seconds"]], [mean], yerr=[sd], fmt="o", capsize=3, color=colour[r["system"]])
            ax.annotate(SHOWN.get(r["system"], r["system"]), (r["seconds"], mean), fontsize=7, xytext=(4, 3),
                        textcoords="offset points")
        ax.set_xscale("log")
        times = [r["seconds"] for r in rows]
        if times:  # room on the right for the last point's name
            ax.set_xlim(min(times) / 2, max(times) * 6)
        ax.set_title(corpus)
        ax.set_xlabel("training seconds (2 cores)")
        ax.set_ylabel("test " + label)
    fig.tight_layout()
    fig.savefig(path, format="svg")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--configs", nargs="+", required=True)
    ap.add_argument("--corpora", nargs="+", required=True)
    args = ap.parse_args()
    text, panels = table(args.out, args.configs, args.corpora)
    with open(f"{args.out}/accuracy.md", "w") as f:
        f.write(text)
    print(text)
    plot(panels, f"{args.out}/accuracy.svg")
    print(f"(plot: {args.out}/accuracy.svg)")


if __name__ == "__main__":
    main()
