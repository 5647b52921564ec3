// The compiler plugin's dictionary, end to end: the literals of a target built with it
// (tests/targets/literals.cc), and the tokens it tests one byte at a time, are in its
// `pollen_dict` section, and `pollen fuzz` uses them unless told not to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "engine/embedded_dictionary.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(TargetDictionaryTest, ThePluginKeepsTheComparedLiteralsByteChainsAndKeywordTables) {
  auto dict = engine::ReadEmbeddedDictionary(TestTarget("literals"));
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  const auto& entries = dict.value().entries;
  EXPECT_THAT(entries, Contains(std::string("MAGIC-LITERAL")));
  EXPECT_THAT(entries, Contains(std::string("keyword")));
  EXPECT_THAT(entries, Contains(std::string("\x68\x24\x57\x13", 4)));  // the switch case
  EXPECT_THAT(entries, Contains(std::string("\xef\xbe", 2)));          // a 16-bit field
  EXPECT_THAT(entries, Not(Contains(HasSubstr("format string"))));
  // The byte-chain pass: one token from three one-byte tests; a NUL cuts a token in two; a
  // switch's cases are not one.
  EXPECT_THAT(entries, Contains(std::string("Q<!")));
  EXPECT_THAT(entries, Not(Contains(HasSubstr("!x"))));
  EXPECT_THAT(entries, Not(Contains(HasSubstr("!m"))));
  EXPECT_THAT(entries, Contains(std::string("K7")));
  EXPECT_THAT(entries, Contains(std::string("J8")));
  EXPECT_THAT(entries, Not(Contains(HasSubstr(std::string("7\0J", 3)))));
  // Keyword tables: every word of a table of them; no table of messages, not even its one
  // word.
  for (const char* word : {"lshift", "rshift", "rotate", "xorwith", "swap_16"})
    EXPECT_THAT(entries, Contains(std::string(word)));
  EXPECT_THAT(entries, Not(Contains(std::string("fine"))));
  EXPECT_THAT(entries, Not(Contains(HasSubstr("by far"))));
  for (const std::string& e : entries) EXPECT_GE(e.size(), 2u) << "one byte is no entry";
}

TEST(TargetDictionaryTest, PollenFuzzUsesItUnlessToldNotTo) {
  auto dict = engine::ReadEmbeddedDictionary(TestTarget("literals"));
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  const std::string dir = MakeTempDir();
  CommandResult on = RunCommand(
      {PollenBin(), "fuzz", TestTarget("literals"), "--runs=10", "--workdir=" + dir + "/a"}, 60);
  EXPECT_EQ(on.exit_code, 0) << on.output;
  const std::string expected =
      "(" + std::to_string(dict.value().entries.size()) + " embedded in the target)";
  EXPECT_THAT(on.output, HasSubstr(expected));
  CommandResult off = RunCommand({PollenBin(), "fuzz", TestTarget("literals"), "--runs=10",
                                  "--target-dict=false", "--workdir=" + dir + "/b"},
                                 60);
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_THAT(off.output, HasSubstr("dictionary 0 entries (0 embedded in the target)"));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST(TargetDictionaryTest, ATargetBuiltWithoutThePluginHasNone) {
  auto dict = engine::ReadEmbeddedDictionary(Example("keyword"));
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_TRUE(dict.value().entries.empty());
}

}  // namespace
}  // namespace pollen::testing
