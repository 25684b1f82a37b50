#!/usr/bin/env python3
"""Short-text corpora cut from the shared long-text ones, to check configs on short documents.

The shared corpora are all long (20news posts, IMDB reviews, whole e-mails). Short texts are
where fastText and linear models are hardest to beat, so this writes three short-text tasks
with the same labels and splits:

  20news-subjects      each post's first non-empty line (its subject), 20 topics
  spam-subjects        each mail's first non-empty line (its subject), spam / ham
  imdb-first-sentence  each review's first sentence (up to . ! or ?), positive / negative

Usage: research/short_corpora.py [--data ../shared/data] [--out runs/short-data]
Then:  scripts/accuracy.sh --data runs/short-data --corpora "20news-subjects spam-subjects imdb-first-sentence"
Every record is kept (a document whose text is all blank stays empty), so the splits' sizes
match the source's.
"""
import argparse
import json
import os
import re
import statistics

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# IMDB reviews carry <br /> tags between paragraphs.
TAG = re.compile(r"<[^>]{0,20}>")


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def first_sentence(text):
    text = TAG.sub(" ", text).strip()
    return SENTENCE_END.split(text, maxsplit=1)[0] if text else ""


TASKS = {
    "20news-subjects": ("20news", first_line),
    "spam-subjects": ("spamassassin", first_line),
    "imdb-first-sentence": ("imdb", first_sentence),
}


def convert(source, target, cut):
    words = []
    with open(source, encoding="utf-8") as src, open(target + ".tmp", "w", encoding="utf-8") as dst:
        for number, line in enumerate(src, 1):
            if not line.strip():
                continue
            record = json.loads(line)
            if "text" not in record:
                raise SystemExit(f"{source}:{number}: no 'text' key")
            short = {k: v for k, v in record.items() if k in ("label", "labels")}
            short["text"] = cut(record["text"])
            words.append(len(short["text"].split()))
            dst.write(json.dumps(short, ensure_ascii=False) + "\n")
    os.replace(target + ".tmp", target)
    return words


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--out", default="runs/short-data")
    args = ap.parse_args()
    for task, (corpus, cut) in TASKS.items():
        os.makedirs(os.path.join(args.out, task), exist_ok=True)
        for split in ("train", "dev", "test"):
            source = os.path.join(args.data, corpus, split + ".jsonl")
            if not os.path.exists(source):
                raise SystemExit(f"short_corpora.py: {source} not found (--data names the corpora's folder)")
            words = convert(source, os.path.join(args.out, task, split + ".jsonl"), cut)
            if not words:
                print(f"{task}/{split}: no documents")
                continue
            print(f"{task}/{split}: {len(words)} documents, {statistics.mean(words):.1f} words on average "
                  f"(median {statistics.median(words):.0f}), {sum(w == 0 for w in words)} empty")


if __name__ == "__main__":
    main()
