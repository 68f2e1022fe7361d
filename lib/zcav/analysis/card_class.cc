// The write rate an SD card's grades promise: see card_class.h.
#include "zcav/analysis/card_class.h"

#include <charconv>
#include <string_view>

#include "zcav/base/text.h"

namespace zcav {

namespace {

// The number after `prefix` in a grade ("V30" -> 30), if the grade is that.
std::optional<int> GradeNumber(std::string_view grade, std::string_view prefix) {
  if (!grade.starts_with(prefix)) return std::nullopt;
  grade.remove_prefix(prefix.size());
  int n = 0;
  const auto [end, ec] = std::from_chars(grade.data(), grade.data() + grade.size(), n);
  if (ec != std::errc() || end != grade.data() + grade.size()) return std::nullopt;
  return n;
}

// The rate `grade` promises, MB/s; 0 for none.
double Promise(std::string_view grade) {
  if (const auto c = GradeNumber(grade, "class ")) {
    return *c == 2 || *c == 4 || *c == 6 || *c == 10 ? *c : 0;
  }
  if (const auto u = GradeNumber(grade, "U")) return *u == 1 ? 10 : *u == 3 ? 30 : 0;
  if (const auto v = GradeNumber(grade, "V")) {
    return *v == 6 || *v == 10 || *v == 30 || *v == 60 || *v == 90 ? *v : 0;
  }
  return 0;
}

}  // namespace

std::optional<CardPromise> CardPromiseOf(const LinkState& link) {
  std::optional<CardPromise> best;
  const auto consider = [&best](std::string_view grade) {
    grade = Trim(grade);
    const double rate = Promise(grade);
    if (rate > 0 && (!best || rate >= best->mb_per_s)) best = CardPromise{std::string(grade), rate};
  };
  consider(link.speed_class);
  for (const std::string_view g : SplitAt(link.card_grades, ',')) consider(g);
  return best;
}

std::string CardPromiseSentence(const CardPromise& promise, double sustained_mb_per_s) {
  const bool meets = sustained_mb_per_s >= promise.mb_per_s;
  return "sustained write " + FormatFixed(sustained_mb_per_s, 1) + " MB/s " +
         (meets ? "meets" : "is below") + " the " + FormatFixed(promise.mb_per_s, 0) +
         " MB/s the card's " + promise.grade + " promises (MB = 10^6 B)";
}

}  // namespace zcav
