// A typed fuzz test (fuzztest/fuzz_test.h, docs/fuzz-tests.md) with a planted bug: a
// key=value line encoder whose decoder splits at the first '=' instead of the last, so a key
// containing '=' does not come back. The seeds pass, and so does `ctest`; fuzzing finds it:
//
//   build/examples/key_value_fuzz_test --fuzz=KeyValue.RoundTrips --fuzz_time=60
//
// which writes the failing input into examples/testdata/fuzz/KeyValue.RoundTrips/, where
// the next plain run finds it too.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzztest/fuzz_test.h"

namespace {

struct Entry {
  std::string key;
  int32_t value = 0;
};

std::string Encode(std::string_view key, int32_t value, bool spaced) {
  return std::string(key) + (spaced ? " = " : "=") + std::to_string(value);
}

bool Decode(std::string_view line, Entry* out) {
  size_t eq = line.find('=');  // the planted bug: the last '=' ends the key
  if (eq == std::string_view::npos) return false;
  std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
  if (!key.empty() && key.back() == ' ') key.remove_suffix(1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  out->key = std::string(key);
  auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), out->value);
  return error == std::errc() && end == value.data() + value.size();
}

}  // namespace

POLLEN_FUZZ_TEST(KeyValue, RoundTrips, [](std::string_view key, int32_t value, bool spaced) {
  if (key.find('\n') != std::string_view::npos || key.empty() || key.back() == ' ')
    return;  // not keys
  Entry entry;
  ASSERT_TRUE(Decode(Encode(key, value, spaced), &entry));
  EXPECT_EQ(entry.key, key);
  EXPECT_EQ(entry.value, value);
}).Seeds({{"width", 80, false}, {"title", -1, true}});

// A property that holds: fuzzing it runs until --fuzz_time (tests/fuzz_test_test.cc stops it
// with SIGTERM).
POLLEN_FUZZ_TEST(KeyValue, OneLinePerEntry, [](std::string_view key, int32_t value, bool spaced) {
  if (key.find('\n') != std::string_view::npos) return;
  EXPECT_EQ(Encode(key, value, spaced).find('\n'), std::string::npos);
});
