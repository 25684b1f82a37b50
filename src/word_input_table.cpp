#include "han/word_input_table.h"

#include "han/error.h"

namespace han {

WordInputTable::WordInputTable(const HanParams& params)
    : params_(params),
      enabled_(6 * params.word_gru.fwd.hidden() <= 2 * params.embedding.table.rows()) {
  // Allocated whole but written column by column: pages of unseen words are never touched.
  if (enabled_) table_.resize(6 * params.word_gru.fwd.hidden(), params.embedding.table.cols());
  ready_.assign(static_cast<std::size_t>(enabled_ ? params.embedding.table.cols() : 0), false);
}

void WordInputTable::fill(const std::vector<Document>& docs, const std::vector<Index>& indices) {
  if (!enabled_) return;
  std::vector<std::int32_t> missing;
  for (Index i : indices)
    for (const std::vector<std::int32_t>& sentence : docs[i].sentences)
      for (std::int32_t id : sentence) {
        HAN_ASSERT(id >= 0 && id < table_.cols());
        if (ready_[id]) continue;
        ready_[id] = true;
        missing.push_back(id);
      }
  if (missing.empty()) return;
  Matrix x(params_.embedding.table.rows(), static_cast<Index>(missing.size()));  // (E, new words)
  for (std::size_t k = 0; k < missing.size(); ++k) x.col(static_cast<Index>(k)) = params_.embedding.table.col(missing[k]);
  const Matrix columns = bigru_input_table(params_.word_gru, x);  // (6Hw, new words)
  for (std::size_t k = 0; k < missing.size(); ++k) table_.col(missing[k]) = columns.col(static_cast<Index>(k));
}

}  // namespace han
