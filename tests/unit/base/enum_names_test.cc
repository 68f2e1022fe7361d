#include "zcav/base/enum_names.h"

#include <catch2/catch.hpp>

namespace {

enum class Colour { kRed, kGreen, kBlue, kUnnamed };

constexpr zcav::EnumName<Colour> kColourNames[] = {{Colour::kRed, "red"},
                                                   {Colour::kGreen, "green"},
                                                   {Colour::kBlue, "blue"},
                                                   {Colour::kRed, "rot"}};

}  // namespace

TEST_CASE("NameOf gives a value's first name, or the fallback", "[enum_names]") {
  CHECK(std::string_view(zcav::NameOf(Colour::kRed, kColourNames, "?")) == "red");
  CHECK(std::string_view(zcav::NameOf(Colour::kBlue, kColourNames, "?")) == "blue");
  CHECK(std::string_view(zcav::NameOf(Colour::kUnnamed, kColourNames, "?")) == "?");
  static_assert(zcav::NameOf(Colour::kGreen, kColourNames, "?")[0] == 'g');
}

TEST_CASE("ValueOf finds a value by its exact name", "[enum_names]") {
  CHECK(zcav::ValueOf("green", kColourNames) == Colour::kGreen);
  CHECK(zcav::ValueOf("rot", kColourNames) == Colour::kRed);
  CHECK_FALSE(zcav::ValueOf("Green", kColourNames).has_value());
  CHECK_FALSE(zcav::ValueOf("", kColourNames).has_value());
  CHECK_FALSE(zcav::ValueOf("?", kColourNames).has_value());
}
