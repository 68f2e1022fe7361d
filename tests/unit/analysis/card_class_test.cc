// The write rate an SD card's grades promise (card_class.h): the highest of
// its speed class, UHS and video grades; garbage ignored.
#include "zcav/analysis/card_class.h"

#include <catch2/catch.hpp>

namespace zcav {

namespace {

std::optional<CardPromise> Of(const std::string& speed_class, const std::string& grades) {
  LinkState link;
  link.speed_class = speed_class;
  link.card_grades = grades;
  return CardPromiseOf(link);
}

}  // namespace

TEST_CASE("A card promises the rate of its highest grade", "[card_class]") {
  auto p = Of("class 10", "U3, V30, A2");
  REQUIRE(p);
  CHECK(p->grade == "V30");
  CHECK(p->mb_per_s == 30);
  p = Of("class 10", "U1, A1");
  REQUIRE(p);
  CHECK(p->grade == "U1");  // as class 10: of equal promises the later, finer grade
  CHECK(p->mb_per_s == 10);
  p = Of("class 4", "");
  REQUIRE(p);
  CHECK(p->mb_per_s == 4);
  p = Of("", "U3, V90");
  REQUIRE(p);
  CHECK(p->grade == "V90");
  CHECK(p->mb_per_s == 90);
}

TEST_CASE("No promise without a grade, and garbled grades are ignored", "[card_class]") {
  CHECK_FALSE(Of("", ""));
  CHECK_FALSE(Of("class 0", "A2"));
  CHECK_FALSE(Of("class 7", "U2, V31, V3x, V"));
  CHECK_FALSE(Of("class 10x", "A1"));
}

TEST_CASE("The sentence says whether the sustained rate keeps the promise", "[card_class]") {
  const CardPromise v30{"V30", 30};
  CHECK(CardPromiseSentence(v30, 12.34) ==
        "sustained write 12.3 MB/s is below the 30 MB/s the card's V30 promises (MB = 10^6 B)");
  CHECK(CardPromiseSentence(v30, 30) ==
        "sustained write 30.0 MB/s meets the 30 MB/s the card's V30 promises (MB = 10^6 B)");
}

}  // namespace zcav
