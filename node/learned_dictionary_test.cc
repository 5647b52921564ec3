#include "node/learned_dictionary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "node/text_file.h"

namespace pollen::node {
namespace {

using ::testing::HasSubstr;

std::string TempWorkdir() {
  char tmpl[] = "/tmp/pollen-learned-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  return dir == nullptr ? std::string() : std::string(dir);
}

TEST(LearnedDictionaryTest, SavedWordsComeBackInTheNextRun) {
  std::string dir = TempWorkdir();
  ASSERT_FALSE(dir.empty());
  engine::LearnedWords words{};
  words.Add(reinterpret_cast<const uint8_t*>("HELO"), 4);
  words.Add(reinterpret_cast<const uint8_t*>("a\"\\\x01"), 4);
  ASSERT_TRUE(SaveLearnedDictionary(LearnedDictionaryPath(dir), words).ok());

  engine::LearnedWords loaded{};
  Status st = LoadLearnedDictionary(LearnedDictionaryPath(dir), &loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(loaded.count, 2u);
  EXPECT_EQ(loaded.Format(false), words.Format(false));
  std::filesystem::remove_all(dir);
}

TEST(LearnedDictionaryTest, AMissingFileIsNoErrorAndABadOneSaysWhere) {
  std::string dir = TempWorkdir();
  ASSERT_FALSE(dir.empty());
  engine::LearnedWords loaded{};
  EXPECT_TRUE(LoadLearnedDictionary(LearnedDictionaryPath(dir), &loaded).ok());
  EXPECT_EQ(loaded.count, 0u);

  ASSERT_TRUE(WriteTextFile(LearnedDictionaryPath(dir), "\"ok\"\n\"unterminated\n").ok());
  Status st = LoadLearnedDictionary(LearnedDictionaryPath(dir), &loaded);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("learned.dict:2"));
  EXPECT_EQ(loaded.count, 0u);  // nothing from a file that does not parse
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pollen::node
