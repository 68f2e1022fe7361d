// Curve: see curve.h.
#include "zcav/result/curve.h"

#include <algorithm>
#include <cassert>

namespace zcav {

Curve::Curve(std::span<const CurvePoint> points) {
  reserve(points.size());
  for (const CurvePoint& p : points) push_back(p);
}

Curve::Curve(std::initializer_list<CurvePoint> points)
    : Curve(std::span<const CurvePoint>(points.begin(), points.size())) {}

Curve::Data& Curve::Mutable() {
  if (!data_) {
    data_ = std::make_shared<Data>();
  } else if (data_.use_count() > 1) {
    data_ = std::make_shared<Data>(*data_);
  }
  return *data_;
}

void Curve::push_back(const CurvePoint& p) {
  Data& d = Mutable();
  const auto matches = [&p](Spread spread) {
    return spread == Spread::kZero ? p.min_mb_per_s == 0 && p.max_mb_per_s == 0
                                   : p.min_mb_per_s == p.mb_per_s && p.max_mb_per_s == p.mb_per_s;
  };
  if (d.rates.empty()) {
    d.spread = matches(Spread::kZero)   ? Spread::kZero
               : matches(Spread::kSame) ? Spread::kSame
                                        : Spread::kStored;
    d.min.clear();
    d.max.clear();
  } else if (d.spread != Spread::kStored && !matches(d.spread)) {
    // The spread says more than the rate: store it for every point so far.
    d.min.resize(d.rates.size());
    d.max.resize(d.rates.size());
    for (std::size_t i = 0; i < d.rates.size(); ++i) {
      d.min[i] = d.max[i] = d.spread == Spread::kSame ? d.rates[i] : 0;
    }
    d.spread = Spread::kStored;
  }
  if (d.spread == Spread::kStored) {
    d.min.push_back(p.min_mb_per_s);
    d.max.push_back(p.max_mb_per_s);
  }
  // Extend the last run when the point continues it, else start one.
  const std::size_t i = d.rates.size();
  bool continues = false;
  if (!d.runs.empty() && d.runs.back().length == p.length_bytes) {
    Run& r = d.runs.back();
    const std::size_t count = i - r.first;
    if (count == 1 && p.offset_bytes > r.offset) {
      r.stride = p.offset_bytes - r.offset;
      continues = true;
    } else if (count >= 2 && p.offset_bytes > r.offset) {
      const std::uint64_t step = p.offset_bytes - r.offset;
      continues = step % r.stride == 0 && step / r.stride == count;
    }
  }
  if (!continues) d.runs.push_back({i, p.offset_bytes, 0, p.length_bytes});
  d.rates.push_back(p.mb_per_s);
}

void Curve::reserve(std::size_t points) { Mutable().rates.reserve(points); }

void Curve::clear() { data_.reset(); }

std::size_t Curve::RunOf(std::size_t i) const {
  const std::vector<Run>& runs = data_->runs;
  const auto after = std::upper_bound(
      runs.begin(), runs.end(), i, [](std::size_t index, const Run& r) { return index < r.first; });
  return static_cast<std::size_t>(after - runs.begin()) - 1;
}

CurvePoint Curve::PointIn(std::size_t run, std::size_t i) const {
  const Data& d = *data_;
  const Run& r = d.runs[run];
  CurvePoint p;
  p.offset_bytes = r.offset + (i - r.first) * r.stride;
  p.length_bytes = r.length;
  p.mb_per_s = d.rates[i];
  if (d.spread == Spread::kSame) {
    p.min_mb_per_s = p.max_mb_per_s = d.rates[i];
  } else if (d.spread == Spread::kStored) {
    p.min_mb_per_s = d.min[i];
    p.max_mb_per_s = d.max[i];
  }
  return p;
}

CurvePoint Curve::operator[](std::size_t i) const {
  assert(i < size());
  return PointIn(RunOf(i), i);
}

std::uint64_t Curve::offset_bytes(std::size_t i) const {
  assert(i < size());
  const Run& r = data_->runs[RunOf(i)];
  return r.offset + (i - r.first) * r.stride;
}

std::uint64_t Curve::length_bytes(std::size_t i) const {
  assert(i < size());
  return data_->runs[RunOf(i)].length;
}

std::vector<CurvePoint> Curve::ToVector() const {
  std::vector<CurvePoint> out;
  out.reserve(size());
  for (const CurvePoint& p : *this) out.push_back(p);
  return out;
}

Curve::Iterator::Iterator(const Curve* curve, std::size_t index) : curve_(curve), index_(index) {
  if (index_ < curve_->size()) run_ = curve_->RunOf(index_);
}

CurvePoint Curve::Iterator::operator*() const { return curve_->PointIn(run_, index_); }

Curve::Iterator& Curve::Iterator::operator++() {
  ++index_;
  const std::vector<Run>& runs = curve_->data_->runs;
  if (run_ + 1 < runs.size() && index_ >= runs[run_ + 1].first) ++run_;
  return *this;
}

}  // namespace zcav
