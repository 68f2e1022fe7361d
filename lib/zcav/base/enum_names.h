// Names of enum values: one table of {value, name} pairs per enum, looked up
// both ways by the two functions here, in place of a switch per direction
// and module.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace zcav {

// One value of an enum and its name (a string literal: static storage).
template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// The name of `value` in `table` (the first entry that holds it), or
// `fallback` when no entry does. Never throws.
template <typename Enum, std::size_t N>
constexpr const char* NameOf(Enum value, const EnumName<Enum> (&table)[N], const char* fallback) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return fallback;
}

// The value named exactly `name` (case-sensitive) in `table` (the first
// entry of that name), or std::nullopt when no entry has it. Never throws.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> ValueOf(std::string_view name, const EnumName<Enum> (&table)[N]) {
  for (const EnumName<Enum>& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace zcav
