// Helpers shared by the unit tests.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "zcav/base/error.h"
#include "zcav/measure/sample_sink.h"

namespace zcav::test {

// A sink that records every event it is given, in order.
class RecordingSink final : public SampleSink {
 public:
  void OnStart(const RunInfo& run) override {
    started = true;
    plan = run.plan;
  }
  void OnSample(const Sample& s) override { samples.push_back(s); }
  void OnBlock(const BlockResult& b) override { blocks.push_back(b); }
  void OnPassDone(const PassSummary& p) override { passes.push_back(p); }
  void OnUnreadable(const UnreadableRange& r) override { unreadable.push_back(r); }
  void OnSlowRegion(const SlowRegion& r) override { slow.push_back(r); }
  void OnFinish(const SweepResult& r) override {
    finished = true;
    result = r;
  }

  bool started = false;
  bool finished = false;
  SweepPlan plan;
  std::vector<Sample> samples;
  std::vector<BlockResult> blocks;
  std::vector<PassSummary> passes;
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow;
  SweepResult result;
};

// A fresh directory under the system temp dir, removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Whole contents of a file; throws std::runtime_error if unreadable.
std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, const std::string& contents);

// For a test that cannot run on this machine (no io_uring, no gnuplot): a
// WARN naming `reason`, after which the test returns; under
// ZCAV_REQUIRE_ALL=1 (CI, which must run everything) a FAIL instead.
void NotRunHere(const std::string& reason);

// Path of a file under tests/data.
std::filesystem::path DataPath(const std::string& name);

// When the environment variable ZCAV_UPDATE_GOLDEN=1 is set, writes `actual`
// to the golden file and returns true; otherwise compares it with the file.
// Regenerate all golden files with: ZCAV_UPDATE_GOLDEN=1 build/tests/zcav_tests
bool MatchesGolden(const std::string& actual, const std::string& golden_name);

// "kBadInput" or "kRuntime".
const char* KindName(ErrorKind kind);

// Matches a zcav::Error of `kind` (the exit code the CLI gives it):
//   CHECK_THROWS_MATCHES(expr, Error, test::HasKind(ErrorKind::kRuntime));
class ErrorKindMatcher final : public Catch::MatcherBase<Error> {
 public:
  explicit ErrorKindMatcher(ErrorKind kind) : kind_(kind) {}
  bool match(const Error& e) const override { return e.kind() == kind_; }
  std::string describe() const override;

 private:
  ErrorKind kind_;
};
inline ErrorKindMatcher HasKind(ErrorKind kind) { return ErrorKindMatcher(kind); }

}  // namespace zcav::test

// A failed HasKind shows the kind and message that were thrown.
template <>
struct Catch::StringMaker<zcav::Error> {
  static std::string convert(const zcav::Error& e);
};
