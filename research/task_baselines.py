#!/usr/bin/env python3
"""TF-IDF baselines for han's multilabel and regression tasks (the figures han is compared with).

Usage: /usr/bin/python3 research/task_baselines.py --task multilabel|regression DATA_DIR [--target-key rating]
DATA_DIR holds train/dev/test.jsonl. Features: TF-IDF of word uni+bigrams (sublinear tf, min_df 2), tokenised
as ../shared/bench/sklearn_baseline.py does. multilabel: one-vs-rest logistic regression (liblinear), C picked
on dev micro-F1; a label is answered at probability >= 0.5, and a document none reaches gets its most probable
label (han's rule). regression: ridge, alpha picked on dev RMSE. One JSON line with the test scores, named as
han eval names them.
"""
import argparse
import json
import re
import time

WORD_RE = re.compile(r"\w+|[^\w\s]")


def tok(s):
    return WORD_RE.findall(s.lower())


def read(path, task, key):
    texts, answers = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                texts.append(d.get("text") or "")
                answers.append(d["labels"] if task == "multilabel" else float(d[key]))
    return texts, answers


def answer_sets(probs):
    import numpy as np
    chosen = probs >= 0.5
    none = ~chosen.any(axis=1)
    chosen[none, probs[none].argmax(axis=1)] = True
    return chosen


def multilabel(A, y, grid):
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score, hamming_loss, accuracy_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer
    mlb = MultiLabelBinarizer().fit(y["train"])
    Y = {s: mlb.transform(y[s]) for s in y}
    best = None
    for C in grid:
        clf = OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear")).fit(A["train"], Y["train"])
        f1 = f1_score(Y["dev"], answer_sets(clf.predict_proba(A["dev"])), average="micro")
        if best is None or f1 > best[0]:
            best = (f1, C, clf)
    f1, C, clf = best
    probs = clf.predict_proba(A["test"])
    pred = answer_sets(probs)
    top = probs.argmax(axis=1)
    gold = Y["test"]
    return {"method": "tfidf12-ovr-logreg", "C": C, "dev_micro_f1": round(f1, 4),
            "micro_f1": round(f1_score(gold, pred, average="micro"), 4),
            "macro_f1": round(f1_score(gold, pred, average="macro", zero_division=0), 4),
            "subset_accuracy": round(accuracy_score(gold, pred), 4),
            "hamming_loss": round(hamming_loss(gold, pred), 4),
            "precision_at_1": round(float(gold[np.arange(len(top)), top].mean()), 4)}


def regression(A, y, grid):
    import numpy as np
    from scipy.stats import pearsonr, spearmanr
    from sklearn.linear_model import Ridge
    best = None
    for alpha in grid:
        # lsqr: scikit-learn's fastest ridge solver on sparse input; the default took over
        # 20 minutes on IMDB's 25k x 400k features without finishing.
        reg = Ridge(alpha=alpha, solver="lsqr").fit(A["train"], y["train"])
        rmse = float(np.sqrt(np.mean((reg.predict(A["dev"]) - np.array(y["dev"])) ** 2)))
        if best is None or rmse < best[0]:
            best = (rmse, alpha, reg)
    rmse, alpha, reg = best
    pred, gold = reg.predict(A["test"]), np.array(y["test"])
    seen = np.unique(y["train"])
    rounded = seen[np.abs(pred[:, None] - seen[None, :]).argmin(axis=1)]
    return {"method": "tfidf12-ridge", "alpha": alpha, "dev_rmse": round(rmse, 4),
            "rmse": round(float(np.sqrt(np.mean((pred - gold) ** 2))), 4),
            "mae": round(float(np.mean(np.abs(pred - gold))), 4),
            "pearson": round(float(pearsonr(gold, pred)[0]), 4),
            "spearman": round(float(spearmanr(gold, pred)[0]), 4),
            "rounded_accuracy": round(float(np.mean(rounded == gold)), 4)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--task", choices=["multilabel", "regression"], required=True)
    ap.add_argument("--target-key", default="target")
    args = ap.parse_args()
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    start = time.perf_counter()
    X, y = {}, {}
    for split in ("train", "dev", "test"):
        X[split], y[split] = read(f"{args.data}/{split}.jsonl", args.task, args.target_key)
    vec = TfidfVectorizer(tokenizer=tok, lowercase=False, token_pattern=None, ngram_range=(1, 2), min_df=2,
                          sublinear_tf=True, dtype=np.float32)
    A = {"train": vec.fit_transform(X["train"])}
    A.update({s: vec.transform(X[s]) for s in ("dev", "test")})
    result = multilabel(A, y, [1.0, 10.0, 100.0]) if args.task == "multilabel" else regression(A, y, [0.3, 1.0, 3.0, 10.0])
    result.update({"data": args.data, "train_documents": len(X["train"]), "test_documents": len(X["test"]),
                   "seconds": round(time.perf_counter() - start, 1)})
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
