#!/usr/bin/env python3
"""Writes the tiny multi-label and regression sets the CLI tests learn (tests/test_cli_tasks.cpp).
Multi-label: each document mixes sentences on one to three topics; its labels are those topics.
Regression: a review's rating (1-5) is 3 + (good sentences - bad sentences), clipped."""
import json, random

rng = random.Random(13)
TOPICS = {
    "sport": "goal match team score coach league player season".split(),
    "politics": "vote election senate law minister party policy debate".split(),
    "tech": "software chip code network server data robot laptop".split(),
    "food": "recipe bread cheese soup spice oven dinner sauce".split(),
}
FILLER = "the a of and with on this that it was".split()

def sentence(words):
    return " ".join(rng.choice(words if rng.random() < 0.6 else FILLER) for _ in range(rng.randint(5, 9))) + "."

def multilabel(n):
    out = []
    for _ in range(n):
        labels = rng.sample(sorted(TOPICS), rng.choice([1, 1, 2, 2, 3]))
        sentences = [sentence(TOPICS[t]) for t in labels for _ in range(rng.randint(1, 2))]
        rng.shuffle(sentences)
        out.append({"labels": labels, "text": " ".join(sentences)})
    return out

GOOD = "great wonderful superb moving brilliant charming".split()
BAD = "awful boring dull clumsy tedious weak".split()
NEUTRAL = "plot actor scene film story camera music ending".split()

def regression(n):
    out = []
    for _ in range(n):
        good, bad = rng.randint(0, 3), rng.randint(0, 3)
        rating = max(1, min(5, 3 + good - bad))
        sentences = [sentence(GOOD + NEUTRAL) for _ in range(good)] + [sentence(BAD + NEUTRAL) for _ in range(bad)]
        sentences += [sentence(NEUTRAL) for _ in range(rng.randint(1, 2))]
        rng.shuffle(sentences)
        out.append({"rating": rating, "text": " ".join(sentences)})
    return out

for name, make, n in [("multilabel", multilabel, (300, 60, 100)), ("regression", regression, (300, 60, 100))]:
    for split, count in zip(("train", "dev", "test"), n):
        with open(f"{name}_{split}.jsonl", "w") as f:
            for record in make(count):
                f.write(json.dumps(record) + "\n")
