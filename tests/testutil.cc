#include "testutil.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace zcav::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "zcav-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void NotRunHere(const std::string& reason) {
  const char* require_all = std::getenv("ZCAV_REQUIRE_ALL");
  if (require_all != nullptr && std::string(require_all) == "1") {
    FAIL("not run, and ZCAV_REQUIRE_ALL=1 requires it: " << reason);
  }
  WARN("not run here: " << reason);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::filesystem::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary);
  out << contents;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::filesystem::path DataPath(const std::string& name) {
  return std::filesystem::path(ZCAV_TEST_DATA_DIR) / name;
}

bool MatchesGolden(const std::string& actual, const std::string& golden_name) {
  const char* update = std::getenv("ZCAV_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    WriteFile(DataPath(golden_name), actual);
    return true;
  }
  return ReadFile(DataPath(golden_name)) == actual;
}

const char* KindName(ErrorKind kind) {
  return kind == ErrorKind::kBadInput ? "kBadInput" : "kRuntime";
}

std::string ErrorKindMatcher::describe() const {
  return std::string("is an Error of kind ") + KindName(kind_);
}

}  // namespace zcav::test

std::string Catch::StringMaker<zcav::Error>::convert(const zcav::Error& e) {
  return std::string("Error(") + zcav::test::KindName(e.kind()) + ", \"" + e.what() + "\")";
}
