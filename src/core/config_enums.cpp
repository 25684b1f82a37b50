#include "han/core/config_enums.h"

#include "han/core/error.h"
#include "han/core/json_text.h"

namespace han::detail {

const char* name_at(const char* const* names, std::size_t count, std::size_t index) {
  HAN_ASSERT(index < count);
  return names[index];
}

std::size_t index_of_name(const char* const* names, std::size_t count, const std::string& name,
                          const std::string& key) {
  for (std::size_t i = 0; i < count; ++i) {
    if (name == names[i]) return i;
  }
  std::string allowed;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) allowed += ", ";
    allowed += '"';
    allowed += names[i];
    allowed += '"';
  }
  throw Error(key + ": must be one of " + allowed + ", got " + quote_excerpt(name));
}

std::string encoding_name(const std::string& name) {
  std::string n;
  for (char c : name) n.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  if (n == "utf8") return "utf-8";
  if (n == "latin1" || n == "iso-8859-1" || n == "iso8859-1") return "latin-1";
  if (n == "cp1252" || n == "windows1252") return "windows-1252";
  const bool known = n == "auto" || n == "utf-8" || n == "latin-1" || n == "windows-1252";
  return known ? n : name;
}

}  // namespace han::detail
