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

}  // namespace han::detail
