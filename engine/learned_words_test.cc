#include "engine/learned_words.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/dictionary.h"

namespace pollen::engine {
namespace {

void Add(LearnedWords& l, const std::string& w, uint32_t uses = 1) {
  l.Add(reinterpret_cast<const uint8_t*>(w.data()), w.size(), uses);
}

TEST(LearnedWordsTest, CountsUsesAndPrintsTheMostUsedFirst) {
  LearnedWords l{};
  Add(l, "MAIL");
  Add(l, "HELO");
  Add(l, "HELO");
  Add(l, "x");                                           // one byte: not a word
  Add(l, std::string(LearnedWords::kMaxWord + 1, 'z'));  // too long
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(l.Format(true), "\"HELO\" # Uses: 2\n\"MAIL\" # Uses: 1\n");
}

TEST(LearnedWordsTest, FormatEscapesAndParsesBack) {
  LearnedWords l{};
  const std::string odd = std::string("a\"b\\c\x01\xff", 7);
  Add(l, odd);
  auto dict = ParseDictionary(l.Format(false), "learned");
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  ASSERT_EQ(dict.value().entries.size(), 1u);
  EXPECT_EQ(dict.value().entries[0], odd);
}

TEST(LearnedWordsTest, WhenFullTheLeastUsedMakesRoom) {
  LearnedWords l{};
  for (size_t i = 0; i < LearnedWords::kMax; i++) Add(l, "w" + std::to_string(i), i == 7 ? 1 : 5);
  Add(l, "newcomer");
  EXPECT_EQ(l.count, LearnedWords::kMax);
  std::string text = l.Format(false);
  EXPECT_NE(text.find("\"newcomer\""), std::string::npos);
  EXPECT_EQ(text.find("\"w7\""), std::string::npos);
  EXPECT_NE(text.find("\"w8\""), std::string::npos);
}

TEST(LearnedWordsTest, MergeTakesTheLargerCount) {
  LearnedWords a{}, b{};
  Add(a, "QUIT", 3);
  Add(b, "QUIT", 2);
  Add(b, "DATA", 4);
  a.Merge(b);
  EXPECT_EQ(a.count, 2u);
  EXPECT_EQ(a.Format(true), "\"DATA\" # Uses: 4\n\"QUIT\" # Uses: 3\n");
}

}  // namespace
}  // namespace pollen::engine
