#include <catch2/catch.hpp>

#include "han/core/text_table.h"

using namespace han;

TEST_CASE("display width counts code points, and text tables pad by it", "[text_table]") {
  CHECK(display_width("") == 0);
  CHECK(display_width("abc") == 3);
  CHECK(display_width("Δ±—") == 3);
  CHECK(display_width("0.8 ± n/a") == 9);
  CHECK(text_table({{"Δacc", "x"}, {"wins", "y"}, {"—", "z"}}) == "Δacc  x\nwins  y\n—     z\n");
  // The last cell is not padded; a gap of choice.
  CHECK(text_table({{"a", "b"}, {"ccc", "dd"}}, "   ") == "a     b\nccc   dd\n");
  CHECK(text_table({}) == "");
}
