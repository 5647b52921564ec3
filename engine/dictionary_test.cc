#include "engine/dictionary.h"

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::engine {
namespace {

using ::testing::HasSubstr;

// The example from libFuzzer's documentation (docs/LibFuzzer.rst, "Dictionaries").
constexpr char kLibFuzzerExample[] = R"(# Lines starting with '#' and empty lines are ignored.

# Adds "blah" (w/o quotes) to the dictionary.
kw1="blah"
# Use \\ for backslash and \" for quotes.
kw2="\"ac\\dc\""
# Use \xAB for hex values
kw3="\xF7\xF8"
# the name of the keyword followed by '=' may be omitted:
"foo\x0Abar"
)";

TEST(DictionaryTest, ParsesLibFuzzerDocumentationExample) {
  Result<Dictionary> dict = ParseDictionary(kLibFuzzerExample, "example.dict");
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_EQ(dict->entries,
            (std::vector<std::string>{"blah", "\"ac\\dc\"", "\xF7\xF8", "foo\nbar"}));
}

TEST(DictionaryTest, ParsesAflStyleAndWhitespaceVariants) {
  Result<Dictionary> dict = ParseDictionary(
      "header_png@1=\"\\x89PNG\"\r\n"
      "  spaced_kw = \"a b\"  \r\n"
      "\t\"\\x41\\x42\"\n"
      "   # indented comment\n"
      "\n"
      "\"#not a comment\"\n"
      "last=\"x\"",  // no trailing newline
      "afl.dict");
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_EQ(dict->entries,
            (std::vector<std::string>{"\x89PNG", "a b", "AB", "#not a comment", "x"}));
}

TEST(DictionaryTest, KeepsNulBytesAndAcceptsMaximumLength) {
  std::string longest = "\"" + std::string(Dictionary::kMaxEntrySize, 'q') + "\"\n";
  Result<Dictionary> dict = ParseDictionary("\"\\x00\\x00z\"\n" + longest, "o");
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  ASSERT_EQ(dict->entries.size(), 2u);
  EXPECT_EQ(dict->entries[0], std::string("\0\0z", 3));
  EXPECT_EQ(dict->entries[1].size(), Dictionary::kMaxEntrySize);
}

TEST(DictionaryTest, EmptyTextGivesEmptyDictionary) {
  Result<Dictionary> dict = ParseDictionary("# only a comment\n\n   \n", "o");
  ASSERT_TRUE(dict.ok());
  EXPECT_TRUE(dict->entries.empty());
}

TEST(DictionaryTest, RejectsMalformedLinesWithOriginAndLineNumber) {
  const std::vector<std::string> bad_lines = {
      "kw1=blah",                                                     // value not quoted
      "\"unterminated",                                               // no closing quote
      "kw=\"bad\\q\"",                                                // unknown escape
      "\"\\x4\"",                                                     // one hex digit
      "\"\\xZZ\"",                                                    // not hex
      "\"\\",                                                         // escape at end of line
      "\"\"",                                                         // empty entry
      "kw=\"\"",                                                      // empty entry with a name
      "\"a\" trailing",                                               // text after the value
      "\"a\"b\"",                                                     // unescaped quote inside
      "=\"x\"",                                                       // `=` without a name
      "kw \"x\"",                                                     // missing `=`
      "kw@=\"x\"",                                                    // `@` without a level
      "k!w=\"x\"",                                                    // bad name character
      "\"" + std::string(Dictionary::kMaxEntrySize + 1, 'x') + "\"",  // too long
  };
  for (const std::string& line : bad_lines) {
    std::string text = "# first\nok=\"fine\"\n" + line + "\nlater=\"fine\"\n";
    Result<Dictionary> dict = ParseDictionary(text, "my.dict");
    ASSERT_FALSE(dict.ok()) << "accepted: " << line;
    EXPECT_THAT(dict.status().message(), HasSubstr("my.dict:3:")) << line;
  }
}

TEST(DictionaryTest, ArbitraryBytesNeverCrashAndValidResultsRespectLimits) {
  Rng rng = Rng::FromSeed(7);
  const char kAlphabet[] = "\"\\x0aF=#@ \n\r\tkw1";
  int accepted = 0;
  for (int i = 0; i < 20000; i++) {
    std::string text(rng.Below(40), '\0');
    for (char& ch : text) {
      ch = rng.OneIn(8) ? static_cast<char>(rng.Next())
                        : kAlphabet[rng.Below(sizeof(kAlphabet) - 1)];
    }
    Result<Dictionary> dict = ParseDictionary(text, "fuzz");
    if (!dict.ok()) {
      EXPECT_THAT(dict.status().message(), HasSubstr("fuzz:"));
      continue;
    }
    accepted++;
    for (const std::string& entry : dict->entries) {
      EXPECT_GE(entry.size(), 1u);
      EXPECT_LE(entry.size(), Dictionary::kMaxEntrySize);
    }
  }
  EXPECT_GT(accepted, 0);  // blank and comment-only texts at least
}

std::string TempPath(const char* tag) {
  return ::testing::TempDir() + "/pollen_dictionary_test_" + tag + "_" + std::to_string(getpid());
}

TEST(DictionaryTest, LoadsFileAndNamesItInErrors) {
  std::string path = TempPath("load");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("kw=\"abc\"\n\"\\x01\"\nbroken\n", f);
  std::fclose(f);
  Result<Dictionary> dict = LoadDictionaryFile(path);
  std::remove(path.c_str());
  ASSERT_FALSE(dict.ok());
  EXPECT_THAT(dict.status().message(), HasSubstr(path + ":3:"));

  f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("kw=\"abc\"\n\"\\x01\"\n", f);
  std::fclose(f);
  dict = LoadDictionaryFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(dict.ok()) << dict.status().message();
  EXPECT_EQ(dict->entries, (std::vector<std::string>{"abc", "\x01"}));
}

TEST(DictionaryTest, UnreadableFileIsAClearError) {
  std::string missing = TempPath("missing") + "/nope.dict";
  Result<Dictionary> dict = LoadDictionaryFile(missing);
  ASSERT_FALSE(dict.ok());
  EXPECT_THAT(dict.status().message(), HasSubstr(missing));
  EXPECT_THAT(dict.status().message(), HasSubstr("No such file"));

  Result<Dictionary> dir = LoadDictionaryFile(::testing::TempDir());
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(dir.status().message(), HasSubstr("cannot read dictionary file"));
}

}  // namespace
}  // namespace pollen::engine
