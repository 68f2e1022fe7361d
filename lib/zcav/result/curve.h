// A throughput curve: per block, its position, length and (median) rate,
// stored compactly (what a sweep measured, what the zone detector reads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <vector>

namespace zcav {

// One point of a throughput curve: a block and its (median) rate.
struct CurvePoint {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double mb_per_s = 0;  // 10^6 B/s (median across passes)
  // Spread across passes, when known (plots draw it as a band); 0 = unknown.
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
};

// A throughput curve, stored compactly: what the sweep's sinks keep and what
// data files are read into. A sweep of 20 M blocks would take 800 MB as a
// std::vector<CurvePoint>; here it takes 8 bytes per point (160 MB). Each
// point's rate is kept exactly (a double); positions are kept as runs of
// evenly spaced points of one length (a sweep's blocks form one run, broken
// only where blocks are left out and by the trailing partial block); the
// spread (min, max) only when it is not all zeros (unknown) or all equal to
// the rate (one pass): a multi-pass curve takes 16 bytes more per point.
// Reading a point gives back exactly the CurvePoint added (a spread of -0
// reads as 0). Points are read by value: there are no references into the
// curve. Copies share the points until one of them changes (copy on write),
// so results passed around by value (plot inputs, reports) cost nothing more.
// Distinct copies may be used from different threads; one curve may not.
class Curve {
 public:
  Curve() = default;
  explicit Curve(std::span<const CurvePoint> points);
  Curve(std::initializer_list<CurvePoint> points);

  // Appends `point`. Any order is accepted (an irregular one just stores
  // less compactly); analyses expect position order.
  void push_back(const CurvePoint& point);
  // Reserves room for `points` rates (not for a spread found later).
  void reserve(std::size_t points);
  void clear();

  std::size_t size() const { return data_ ? data_->rates.size() : 0; }
  bool empty() const { return size() == 0; }
  // REQUIRES: i < size() (and !empty() for front/back).
  CurvePoint operator[](std::size_t i) const;
  CurvePoint front() const { return (*this)[0]; }
  CurvePoint back() const { return (*this)[size() - 1]; }
  double mb_per_s(std::size_t i) const { return data_->rates[i]; }
  std::uint64_t offset_bytes(std::size_t i) const;
  std::uint64_t length_bytes(std::size_t i) const;
  std::vector<CurvePoint> ToVector() const;

  // Reads the points in order, by value (an input iterator: one pass).
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = CurvePoint;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = CurvePoint;

    Iterator() = default;
    CurvePoint operator*() const;
    Iterator& operator++();
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }
    friend bool operator!=(const Iterator& a, const Iterator& b) { return a.index_ != b.index_; }

   private:
    friend class Curve;
    Iterator(const Curve* curve, std::size_t index);
    const Curve* curve_ = nullptr;
    std::size_t index_ = 0;
    std::size_t run_ = 0;  // the run holding index_
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  // Points first.. (up to the next run's first) at offset + k * stride, each
  // `length` long.
  struct Run {
    std::size_t first = 0;
    std::uint64_t offset = 0;
    std::uint64_t stride = 0;
    std::uint64_t length = 0;
  };
  enum class Spread : std::uint8_t { kZero, kSame, kStored };
  struct Data {
    std::vector<double> rates;
    std::vector<Run> runs;
    Spread spread = Spread::kZero;
    std::vector<double> min;  // kStored only
    std::vector<double> max;
  };

  // The data, unshared first (copy on write). REQUIRES: data_ not shared
  // with a curve another thread uses.
  Data& Mutable();
  std::size_t RunOf(std::size_t i) const;
  CurvePoint PointIn(std::size_t run, std::size_t i) const;

  std::shared_ptr<Data> data_;  // null: empty
};

}  // namespace zcav
