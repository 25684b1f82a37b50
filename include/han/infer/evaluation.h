#pragma once
// Scoring a model on labelled documents: predict, take the most probable class of each,
// compare with the gold labels. Training (dev score per epoch), the ablation, `han train`
// (test score) and `han eval` all score this way.
#include <vector>

#include "han/core/config.h"
#include "han/infer/metrics.h"
#include "han/infer/predictor.h"
#include "han/infer/task_scores.h"
#include "han/text/batcher.h"

namespace han {

// Every document must carry a label (Document::label >= 0). `padding`, if given, receives
// the attention mass padded positions get in these batches.
Metrics evaluate(const Predictor& predictor, const Documents& docs,
                 const std::vector<BatchIndices>& batches, PaddingAttention* padding = nullptr);
// The scores of predicted probabilities (C x docs.size(), one column per document).
Metrics score_predictions(const Matrix& probabilities, const Documents& docs);
// The task's scores of a predictor's answers (probabilities, or numbers for regression).
TaskScores score_answers(const OutputHead& head, const Matrix& answers, const Documents& docs);
// The same over inference batches (sorted by length: least padding).
Metrics evaluate(const Predictor& predictor, const Documents& docs, Index batch_size);

// Scores for the predictor's task (its head): every document must carry its answer.
TaskScores evaluate_task(const Predictor& predictor, const Documents& docs,
                         const std::vector<BatchIndices>& batches);
TaskScores evaluate_task(const Predictor& predictor, const Documents& docs, Index batch_size);

// The batches a run scores held-out documents in (dev after each epoch; the ablation's
// dev and test): padded as its training batches are, by the configured strategy and batch
// size, shuffled by SeedStream::dev_batches, so an unmasked model is scored as it behaves.
std::vector<BatchIndices> scoring_batches(const Documents& docs, const Config& cfg);

}  // namespace han
