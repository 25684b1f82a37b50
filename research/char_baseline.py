#!/usr/bin/env python3
"""A linear baseline that reads characters: TF-IDF of word uni+bigrams and of character 2-5-grams within
word boundaries (scikit-learn's char_wb), each block sublinear, min_df 2 and scaled to unit length on its
own, then LinearSVC with C picked on dev accuracy from 0.1, 0.3, 1, 3. It is the linear model han's
character n-grams (model.linear_chars) are measured against on short texts.

Usage: /usr/bin/python3 research/char_baseline.py DATA_DIR...
Each DATA_DIR holds train/dev/test.jsonl of single-label documents. One JSON line per folder.
"""
import json
import sys
import time

import numpy as np
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC


def read(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                texts.append(d.get("text") or "")
                labels.append(d["label"])
    return texts, np.array(labels)


def main():
    for folder in sys.argv[1:]:
        train, y = read(folder + "/train.jsonl")
        dev, y_dev = read(folder + "/dev.jsonl")
        test, y_test = read(folder + "/test.jsonl")
        start = time.time()
        words = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2)
        chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2, dtype=np.float32)
        x = hstack([words.fit_transform(train), chars.fit_transform(train)]).tocsr()
        features = lambda texts: hstack([words.transform(texts), chars.transform(texts)]).tocsr()
        x_dev, x_test = features(dev), features(test)
        best = max(((float((m.predict(x_dev) == y_dev).mean()), c, m)
                    for c in (0.1, 0.3, 1.0, 3.0) for m in [LinearSVC(C=c).fit(x, y)]), key=lambda t: t[0])
        print(json.dumps({"dataset": folder.rstrip("/").split("/")[-1], "method": "tfidf12-chars25-linearsvc",
                          "C": best[1], "n_features": x.shape[1], "dev_acc": round(best[0], 4),
                          "test_acc": round(float((best[2].predict(x_test) == y_test).mean()), 4),
                          "train_secs": round(time.time() - start, 1)}), flush=True)


if __name__ == "__main__":
    main()
