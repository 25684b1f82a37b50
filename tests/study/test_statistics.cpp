#include <catch2/catch.hpp>

#include "han/study/statistics.h"

using namespace han;

TEST_CASE("mean, sample sd and the paired t interval against hand-computed values", "[statistics]") {
  CHECK(mean({1, 2, 3, 4}) == Approx(2.5));
  // sd of {2, 4, 4, 4, 5, 5, 7, 9}: sum of squares 32, n - 1 = 7 -> sqrt(32/7) = 2.13809
  CHECK(sample_sd({2, 4, 4, 4, 5, 5, 7, 9}).value() == Approx(2.13809).epsilon(1e-5));
  CHECK(t_quantile_975(1) == Approx(12.7062));
  CHECK(t_quantile_975(2) == Approx(4.3027));
  CHECK(t_quantile_975(100) == Approx(1.984).epsilon(1e-3));
  // differences {0.01, 0.03, 0.02}: mean 0.02, sd 0.01, half width 4.3027 * 0.01 / sqrt(3) = 0.024842
  const PairedDifference d = paired_difference({0.81, 0.83, 0.82}, {0.80, 0.80, 0.80});
  CHECK(d.mean_diff == Approx(0.02));
  REQUIRE(d.ci95.has_value());
  CHECK(d.ci95->low == Approx(0.02 - 0.024842).epsilon(1e-4));
  CHECK(d.ci95->high == Approx(0.02 + 0.024842).epsilon(1e-4));
  CHECK(d.wins == 3);
  const PairedDifference e = paired_difference({0.5, 0.7}, {0.5, 0.6});
  CHECK(e.wins == 1);
  CHECK(e.ties == 1);
}

TEST_CASE("with one value the sd and the paired interval are undefined, not 0", "[statistics]") {
  CHECK_FALSE(sample_sd({3}).has_value());
  CHECK_FALSE(sample_sd({}).has_value());
  CHECK(sample_sd({3, 3}).value() == 0);
  const PairedDifference d = paired_difference({0.81}, {0.80});
  CHECK(d.mean_diff == Approx(0.01));
  CHECK(d.n == 1);
  CHECK(d.wins == 1);
  CHECK_FALSE(d.ci95.has_value());
}

TEST_CASE("for an error (lower is better) a win is a smaller value, and the difference keeps its sign",
          "[statistics]") {
  // RMSE of a variant against renorm's: lower in the first two seeds, higher in the third.
  const PairedDifference d = paired_difference({1.2, 1.0, 1.5}, {1.3, 1.1, 1.4}, /*lower_is_better=*/true);
  CHECK(d.wins == 2);
  CHECK(d.ties == 0);
  CHECK(d.mean_diff == Approx(-0.1 / 3));
  CHECK(paired_difference({1.2, 1.0, 1.5}, {1.3, 1.1, 1.4}).wins == 1);  // the same as scores: higher wins
  CHECK(paired_difference({1.0, 2.0}, {1.0, 3.0}, true).ties == 1);
}
