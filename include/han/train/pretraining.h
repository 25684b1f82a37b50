#pragma once
// model.embeddings = "pretrain": before the classifier, skip-gram vectors (embed.*) are
// trained on the training text and data.unlabeled; their words join the classifier's
// vocabulary (see load_corpus), they are written to the run's vectors.txt, and the trainer
// starts the embedding table from them. A resumed run reads back the vectors.txt it wrote:
// its vocabulary is the checkpoint's, and nothing is pretrained twice (with several threads
// a second pretraining would not even give the same vectors).
#include "han/core/config.h"
#include "han/embed/word_vectors.h"
#include "han/infer/classifier.h"
#include "han/text/corpus.h"
#include "han/train/run_folder.h"

namespace han {

// Trains the vectors of a new run; nothing is written (begin_run comes after).
WordVectors pretrain_vectors(const Config& cfg);

// The corpus han train trains on: load_corpus(run.config), its vocabulary extended with the
// words of the vectors when the run pretrains: `pretrained` for a new run, the run's
// vectors.txt for a resumed one. A run from a model (`parent`, trainer.init) keeps its
// vocabulary and labels (see CorpusBase).
Corpus load_training_corpus(const PreparedRun& run, const WordVectors* pretrained, const Classifier* parent = nullptr);

}  // namespace han
