// The linear member's character n-grams: which runs of characters a word gives, which are
// kept, how an unknown word reaches them, how the member names them, and what a damaged
// table is told apart by.
#include <catch2/catch.hpp>

#include <algorithm>

#include "han/nn/char_grams.h"
#include "han/nn/linear_member.h"
#include "han/nn/member_words.h"
#include "han/text/encoding.h"

using namespace han;

namespace {

const Vocab& vocab() {
  static const Vocab v = Vocab::from_words({"<pad>", "<unk>", "crypt", "cryptic", "baseball"});
  return v;
}

std::vector<std::uint32_t> buckets_of(const std::string& word) {
  std::vector<std::uint32_t> b;
  append_char_gram_buckets(word, b);
  return b;
}

Documents train_docs() {
  Documents docs(vocab().size());
  docs.keep_unknown_words();
  docs.push_back(encode_words({{"crypt", "cryptic"}}, vocab(), 0, true));
  docs.push_back(encode_words({{"cryptic", "cryptos"}}, vocab(), 0, true));
  docs.push_back(encode_words({{"baseball"}}, vocab(), 1, true));
  docs.push_back(encode_words({{"baseball", "bat"}}, vocab(), 1, true));
  return docs;
}

}  // namespace

TEST_CASE("character n-grams: every run of 2 to 5 characters of <word>, UTF-8 characters whole", "[char_grams]") {
  // "<ab>": <a ab b> | <ab ab> | <ab>
  CHECK(buckets_of("ab").size() == 6);
  CHECK(char_gram_of("ab", buckets_of("ab")[0]) == "<a");
  CHECK(char_gram_of("ab", buckets_of("ab")[1]) == "<ab");
  CHECK(char_gram_of("ab", buckets_of("ab")[2]) == "<ab>");
  // "é" is one character of two bytes: the same six runs.
  CHECK(buckets_of("éb").size() == 6);
  CHECK(char_gram_of("éb", buckets_of("éb")[0]) == "<é");
  // A longer word: each start gives the runs of 2..5 that fit; "<abcdef>" has 8 characters.
  CHECK(buckets_of("abcdef").size() == 7 + 6 + 5 + 4);
  for (std::uint32_t b : buckets_of("abcdef")) CHECK(b < kCharGramBuckets);
}

TEST_CASE("character n-grams: each word's range follows from the counts across stride boundaries", "[char_grams]") {
  const Index words = 3 * CharGrams::kStride + 5;  // three whole strides and part of a fourth
  CharGrams g;
  g.buckets = Matrix::Constant(1, 1, 7.0f);
  g.word_counts.resize(1, words);
  std::vector<Index> start{0};  // by hand: where each word's n-grams begin
  for (Index id = 0; id < words; ++id) {
    g.word_counts(0, id) = static_cast<Scalar>((id * 7) % 5);  // 0 to 4, zeros at boundaries too
    start.push_back(start.back() + (id * 7) % 5);
  }
  g.word_grams = Matrix::Zero(1, start.back());
  REQUIRE(index_char_grams(g, words).empty());
  CHECK(g.stride_starts.size() == 4);
  for (Index id = 0; id < words; ++id) {
    INFO("word " << id);
    CHECK(g.grams_of(id) == std::make_pair(start[id], start[id + 1]));
  }
  g.word_counts(0, words - 1) += 1;  // one more than word_grams holds
  CHECK(index_char_grams(g, words) == "the words' character n-grams do not add up");
}

TEST_CASE("character n-grams: those of two documents are kept, and an unknown word reaches them",
          "[char_grams][linear_member]") {
  const Documents train = train_docs();
  const CharGrams g = count_char_grams(train, vocab(), 1000);
  REQUIRE(g.count() > 0);
  CharGrams loaded = g;  // as a model file gives them: the offsets summed from the counts
  loaded.stride_starts.clear();
  CHECK(index_char_grams(loaded, static_cast<Index>(vocab().size())).empty());
  CHECK(loaded.stride_starts == g.stride_starts);
  Index next = 0;  // each word's n-grams follow the previous word's
  for (Index id = 0; id < g.words(); ++id) {
    const auto [first, end] = loaded.grams_of(id);
    CHECK(first == next);
    CHECK(end - first == static_cast<Index>(g.word_counts(0, id)));
    next = end;
  }
  CHECK(next == g.total());
  // "<cryp" is in "crypt" and "cryptic" (document 0), "cryptic" and "cryptos" (document 1).
  const auto kept = [&](const std::string& gram_word, const std::string& gram) {
    for (std::uint32_t b : buckets_of(gram_word))
      if (char_gram_of(gram_word, b) == gram)
        return find_sorted_bucket(g.count(), [&](Index k) { return g.buckets(0, k); }, b) >= 0;
    return false;
  };
  CHECK(kept("crypt", "<cryp"));
  CHECK(kept("baseball", "<bas"));
  CHECK(kept("cryptic", "tic>"));  // "cryptic" is in documents 0 and 1
  CHECK(kept("baseball", "ll>"));
  CHECK_FALSE(kept("cryptos", "os>"));  // one document only

  // As the member's features: an unseen word shares the kept n-grams of the words it resembles.
  const LinearMemberParams p = linear_member_init(train, static_cast<Index>(vocab().size()), 2, Matrix(2, 0),
                                                  LinearText::whole, g);
  REQUIRE(p.gram_count() == g.count());
  REQUIRE(p.words() == static_cast<Index>(vocab().size()));
  Documents test(vocab().size());
  test.keep_unknown_words();
  test.push_back(encode_words({{"cryptology"}}, vocab(), 0, true));
  const BagFeatures x = linear_member_features(p, test, {0});
  const auto grams = std::count_if(x.ids.begin(), x.ids.end(), [&](std::int32_t f) { return f >= p.words(); });
  CHECK(grams >= 4);  // <c <cr <cry <cryp at least
  CHECK(std::find(x.ids.begin(), x.ids.end(), Vocab::kUnk) != x.ids.end());  // and <unk> as a word
  // Scaled to unit length apart: the n-grams, and the words.
  double words2 = 0, grams2 = 0;
  for (std::size_t k = 0; k < x.ids.size(); ++k) (x.ids[k] >= p.words() ? grams2 : words2) += x.values[k] * x.values[k];
  CHECK(words2 == Approx(1.0));
  CHECK(grams2 == Approx(1.0));
  // Named by the text of the n-gram, found in a vocabulary word.
  bool named = false;
  for (std::int32_t f : x.ids)
    if (f >= p.words() && LinearFeatureNamer(p, vocab())(f) == "chars:<cryp") named = true;
  CHECK(named);
}

TEST_CASE("character n-grams: under the caps, the unknown words past them are skipped in step", "[char_grams]") {
  Documents docs(vocab().size());
  docs.keep_unknown_words();
  docs.push_back(encode_words({{"aa", "crypt", "bb"}, {"cc"}}, vocab(), 0, true));
  docs.set_caps(Caps{1, 2});  // reads "aa crypt"
  std::vector<std::string> read;
  for_each_member_word(docs[0], LinearText::caps, [&](std::int32_t id, std::string_view w) {
    read.push_back(id == Vocab::kUnk ? std::string(w) : "#" + std::to_string(id));
  });
  CHECK(read == std::vector<std::string>{"aa", "#2"});
  read.clear();
  for_each_member_word(docs[0], LinearText::whole, [&](std::int32_t id, std::string_view w) {
    read.push_back(id == Vocab::kUnk ? std::string(w) : "#" + std::to_string(id));
  });
  CHECK(read == std::vector<std::string>{"aa", "#2", "bb", "cc"});
}

TEST_CASE("a damaged n-gram table is told apart", "[char_grams]") {
  CharGrams g = count_char_grams(train_docs(), vocab(), 1000);
  const Index V = static_cast<Index>(vocab().size());
  REQUIRE(index_char_grams(g, V).empty());
  CharGrams unsorted = g;
  std::swap(unsorted.buckets(0, 0), unsorted.buckets(0, 1));
  CHECK(index_char_grams(unsorted, V) == "the character n-grams are not sorted buckets");
  CHECK(index_char_grams(g, V + 1) == "the words' character n-grams do not match the vocabulary");
  CharGrams out_of_range = g;
  out_of_range.word_grams(0, 0) = static_cast<Scalar>(g.count());
  CHECK(index_char_grams(out_of_range, V) == "a word's character n-gram is out of range");
  CharGrams miscounted = g;
  miscounted.word_counts(0, 2) += 1;
  CHECK(index_char_grams(miscounted, V) == "the words' character n-grams do not add up");
  miscounted.word_counts(0, 2) = 0.5;
  CHECK(index_char_grams(miscounted, V) == "a word's count of character n-grams is not a count");
  CharGrams none;
  CHECK(index_char_grams(none, V).empty());  // none at all
}
