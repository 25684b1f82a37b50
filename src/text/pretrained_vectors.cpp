#include "han/text/pretrained_vectors.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "han/core/error.h"
#include "han/core/input_stream.h"
#include "han/core/json_text.h"

namespace han {
namespace {

// Buffered bytes of an InputStream with look-ahead: the binary format mixes text words
// and raw floats, so lines alone cannot read it.
class ByteReader {
 public:
  explicit ByteReader(InputStream& in) : in_(in) {}

  // True if n bytes are buffered (reading more as needed); false at the end before that.
  bool ensure(std::size_t n) {
    while (buffer_.size() - pos_ < n) {
      if (pos_ > 0) {
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos_));
        pos_ = 0;
      }
      const std::size_t have = buffer_.size(), want = std::max<std::size_t>(n, 1 << 16);
      buffer_.resize(have + want);
      const std::size_t got = in_.read(buffer_.data() + have, want);
      buffer_.resize(have + got);
      if (got == 0) return false;
    }
    return true;
  }
  std::string_view peek(std::size_t n) const { return {buffer_.data() + pos_, std::min(n, buffer_.size() - pos_)}; }
  void skip(std::size_t n) { pos_ += n; }

  // The next line without its \n or \r\n; false at the end of input.
  bool line(std::string& out) {
    out.clear();
    for (;;) {
      if (!ensure(1)) return !out.empty();
      const std::string_view rest = peek(buffer_.size());
      const std::size_t nl = rest.find('\n');
      out.append(rest.substr(0, nl));
      skip(nl == std::string_view::npos ? rest.size() : nl + 1);
      if (nl != std::string_view::npos) break;
    }
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return true;
  }

 private:
  InputStream& in_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
};

constexpr std::string_view kBlank = " \t";

// Splits at spaces and tabs.
std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t b = line.find_first_not_of(kBlank); b != std::string_view::npos;) {
    const std::size_t e = std::min(line.find_first_of(kBlank, b), line.size());
    out.push_back(line.substr(b, e - b));
    b = line.find_first_not_of(kBlank, e);
  }
  return out;
}

// A finite number as word2vec, GloVe and fastText write them: a leading '+' is allowed,
// and a value too small for a float reads as 0.
bool parse_number(std::string_view s, float& v) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    const double d = std::strtod(std::string(s).c_str(), nullptr);
    if (!std::isfinite(d) || std::fabs(d) >= 1) return false;  // an overflow, not an underflow
    v = 0;
    return true;
  }
  return ec == std::errc() && std::isfinite(v);
}

// word2vec's optional "count dim" first line: two integers.
bool is_header(const std::vector<std::string_view>& f, std::size_t& count, std::size_t& dim) {
  if (f.size() != 2) return false;
  const auto a = std::from_chars(f[0].data(), f[0].data() + f[0].size(), count);
  const auto b = std::from_chars(f[1].data(), f[1].data() + f[1].size(), dim);
  return a.ec == std::errc() && a.ptr == f[0].data() + f[0].size() && b.ec == std::errc() &&
         b.ptr == f[1].data() + f[1].size();
}

// Binary word2vec (after its header) is "word " then dim raw float32s per entry; text has
// only number characters after the word. The first entry's bytes tell them apart.
bool looks_binary(ByteReader& r, std::size_t dim) {
  r.ensure(1024 + 4 * dim);
  const std::string_view head = r.peek(1024 + 4 * dim);
  const std::size_t space = head.find(' ');
  if (space == std::string_view::npos) return false;
  // A text line holds dim numbers and dim - 1 blanks: a line break sooner is a raw float's.
  std::string_view values = head.substr(space + 1, 4 * dim);
  const std::size_t line_end = values.find('\n');
  if (line_end != std::string_view::npos && line_end + 1 < 2 * dim) return true;
  values = values.substr(0, line_end);
  for (char c : values)
    if (c == '\0' || !std::strchr("0123456789.eE+- \t\r", c)) return true;
  return false;
}

class VectorLoader {
 public:
  VectorLoader(Matrix& table, const Vocab& vocab, const std::string& path)
      : table_(table), vocab_(vocab), path_(path), dim_(table.rows()) {}

  // A vocabulary word's column, or -1 for a word to skip.
  Index column_of(std::string_view word) const {
    const std::int32_t id = vocab_.id(word);
    return id == Vocab::kUnk && word != vocab_.word(Vocab::kUnk) ? -1 : id;
  }

  // Reads one line of a text file; false for a blank line (no entry).
  bool text_line(std::string_view line, std::size_t line_no) {
    const std::vector<std::string_view> f = fields_of(line);
    if (f.empty()) return false;
    const std::string where = path_ + ":" + std::to_string(line_no);
    for (std::size_t i = 1; i < f.size(); ++i)
      if (f[i].find_first_not_of("0123456789.eE+-") != std::string_view::npos)
        throw Error(where + ": expected numbers after the word");
    if (static_cast<Index>(f.size() - 1) != dim_)
      throw Error(where + ": vector has " + std::to_string(f.size() - 1) + " values, model.embedding_dim is " +
                  std::to_string(dim_));
    const Index col = column_of(f[0]);
    if (col < 0) return true;
    for (Index i = 0; i < dim_; ++i) {
      float v;
      if (!parse_number(f[static_cast<std::size_t>(i) + 1], v)) throw Error(where + ": expected numbers after the word");
      table_(i, col) = v;
    }
    ++found_;
    return true;
  }

  // `count` entries of "word " + dim float32s (each perhaps followed by a line break).
  void binary(ByteReader& r, std::size_t count) {
    const std::size_t bytes = 4 * static_cast<std::size_t>(dim_);
    std::vector<float> values(static_cast<std::size_t>(dim_));
    for (std::size_t k = 0; k < count; ++k) {
      while (r.ensure(1) && (r.peek(1) == "\n" || r.peek(1) == "\r")) r.skip(1);
      const std::string where = path_ + ": entry " + std::to_string(k + 1) + " of " + std::to_string(count);
      if (!r.ensure(1)) throw Error(where + ": the file ends early (is it cut short?)");
      r.ensure(kMaxWordBytes + 1);
      const std::string_view head = r.peek(kMaxWordBytes + 1);
      const std::size_t space = head.find(' ');
      if (space == std::string_view::npos) throw Error(where + ": no word followed by a space");
      const std::string word(head.substr(0, space));
      r.skip(space + 1);
      if (!r.ensure(bytes)) throw Error(where + ": the file ends early (is it cut short?)");
      std::memcpy(values.data(), r.peek(bytes).data(), bytes);
      r.skip(bytes);
      // A NaN or infinity would otherwise surface only as "training diverged" at step 1.
      for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
          throw Error(where + " (" + quote_excerpt(word) + "): value " + std::to_string(i + 1) +
                      " is not a finite number");
      const Index col = column_of(word);
      if (col < 0) continue;
      table_.col(col) = Eigen::Map<const Vector>(values.data(), dim_);
      ++found_;
    }
  }

  Index dim() const { return dim_; }
  std::size_t found() const { return found_; }

 private:
  static constexpr std::size_t kMaxWordBytes = 4096;
  Matrix& table_;
  const Vocab& vocab_;
  const std::string& path_;
  Index dim_;
  std::size_t found_ = 0;
};

}  // namespace

std::size_t load_pretrained_vectors(Matrix& table, const Vocab& vocab, const std::string& path) {
  InputStream in(path);
  ByteReader reader(in);
  VectorLoader loader(table, vocab, path);
  std::string line;
  std::size_t line_no = 0;
  if (!reader.line(line)) return 0;
  ++line_no;
  std::size_t count = 0, dim = 0;
  const bool header = is_header(fields_of(line), count, dim);
  if (header) {
    if (static_cast<Index>(dim) != loader.dim())
      throw Error(path + ":1: the vectors have " + std::to_string(dim) + " values, model.embedding_dim is " +
                  std::to_string(loader.dim()));
    if (looks_binary(reader, dim)) {
      loader.binary(reader, count);
      return loader.found();
    }
  }
  std::size_t entries = header ? 0 : loader.text_line(line, line_no);
  while (reader.line(line)) entries += loader.text_line(line, ++line_no);
  // A file cut at a line break reads as valid vectors; its header's count says otherwise.
  if (header && entries < count)
    throw Error(path + ": the header says " + std::to_string(count) + " vectors, the file holds " +
                std::to_string(entries) + " (is it cut short?)");
  return loader.found();
}

}  // namespace han
