#include "base/go_corpus.h"

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha1.h"
#include "gtest/gtest.h"

namespace pollen::base {
namespace {

std::vector<uint8_t> Bytes(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Parses `text`, which must succeed.
std::vector<uint8_t> ParseOk(std::string_view text) {
  Result<std::vector<uint8_t>> parsed = ParseGoCorpusFile(text, "testdata/ok");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\nfor: " << text;
  return parsed.ok() ? parsed.value() : std::vector<uint8_t>{};
}

// Parses `text`, which must fail with a message naming the file and containing `part`.
void ExpectParseError(std::string_view text, std::string_view part) {
  Result<std::vector<uint8_t>> parsed = ParseGoCorpusFile(text, "fuzz/FuzzX/bad_file");
  ASSERT_FALSE(parsed.ok()) << "accepted: " << text;
  const std::string& message = parsed.status().message();
  EXPECT_EQ(message.rfind("fuzz/FuzzX/bad_file:", 0), 0u) << message;
  EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' missing from: " << message;
}

TEST(GoCorpusTest, ParsesFilesAsGoWritesThem) {
  EXPECT_EQ(ParseOk("go test fuzz v1\n[]byte(\"\\x00\\xffabc\\n\")\n"),
            Bytes(std::string_view("\x00\xff"
                                   "abc\n",
                                   6)));
  EXPECT_EQ(ParseOk("go test fuzz v1\nstring(\"h\xc3\xa9llo\")\n"), Bytes("h\xc3\xa9llo"));
  EXPECT_EQ(ParseOk("go test fuzz v1\n[]byte(\"\")\n"), Bytes(""));
  EXPECT_EQ(ParseOk("go test fuzz v1\n[]byte(\"\")"), Bytes(""));  // no final newline
}

TEST(GoCorpusTest, UnescapesEveryGoEscape) {
  EXPECT_EQ(ParseOk(R"(go test fuzz v1
string("\a\b\f\n\r\t\v\\\"\'"))"),
            Bytes("\a\b\f\n\r\t\v\\\"'"));
  EXPECT_EQ(ParseOk("go test fuzz v1\nstring(\"\\u00e9\\U0001F600\\u0041\")\n"),
            Bytes("\xc3\xa9\xf0\x9f\x98\x80"
                  "A"));
  EXPECT_EQ(ParseOk("go test fuzz v1\nstring(\"\\U0010FFFF\\u0800\\u07ff\")\n"),
            Bytes("\xf4\x8f\xbf\xbf\xe0\xa0\x80\xdf\xbf"));
  EXPECT_EQ(ParseOk("go test fuzz v1\n[]byte(\"\\101\\000\\377\\xAb\")\n"),
            Bytes(std::string_view("A\x00\xff\xab", 4)));
}

TEST(GoCorpusTest, ParsesRawStringsBlankLinesAndSpaces) {
  EXPECT_EQ(ParseOk("go test fuzz v1\n[]byte(`a\\x00\"b`)\n"), Bytes("a\\x00\"b"));
  EXPECT_EQ(ParseOk("go test fuzz v1\nstring(`x\ry`)\n"), Bytes("xy"));  // Go drops \r
  EXPECT_EQ(ParseOk("go test fuzz v1\n\n  \t[] byte ( \"ab\" ) \r\n\n"), Bytes("ab"));
}

TEST(GoCorpusTest, RejectsWhatGoRejects) {
  ExpectParseError("", ":1: not a Go corpus file");
  ExpectParseError("go test fuzz v2\n[]byte(\"a\")\n", ":1: not a Go corpus file");
  ExpectParseError("[]byte(\"a\")\n", ":1: not a Go corpus file");
  ExpectParseError("go test fuzz v1", ":1: truncated");
  ExpectParseError("go test fuzz v1\n\n", ":2: truncated");
  ExpectParseError("go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n", ":3: a second argument");
  ExpectParseError("go test fuzz v1\nint(5)\n", ":2:1: unsupported argument type int");
  ExpectParseError("go test fuzz v1\n[]int(5)\n", "unsupported argument type []int");
  ExpectParseError("go test fuzz v1\nbyte('a')\n", "unsupported argument type byte");
  ExpectParseError("go test fuzz v1\n(\"a\")\n", "expected []byte");
  ExpectParseError("go test fuzz v1\nstring\n", "expected '('");
  ExpectParseError("go test fuzz v1\nstring(5)\n", "expected a string literal");
  ExpectParseError("go test fuzz v1\n[]byte(\"abc\n", ":2:8: unterminated string literal");
  ExpectParseError("go test fuzz v1\n[]byte(\"abc\\", "unterminated");
  ExpectParseError("go test fuzz v1\n[]byte(`abc)\n", "unterminated raw string");
  ExpectParseError("go test fuzz v1\n[]byte(\"abc\"\n", "expected ')'");
  ExpectParseError("go test fuzz v1\n[]byte(\"a\\qb\")\n", ":2:10: unknown escape sequence \\q");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\x4\")\n", "exactly 2 hex digits");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\x4g\")\n", "exactly 2 hex digits");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\400\")\n", "above \\377");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\12\")\n", "exactly 3 digits");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\8\")\n", "unknown escape sequence \\8");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\ud800\")\n", "surrogate");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\U0000DFFF\")\n", "surrogate");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\U00110000\")\n", "above U+10FFFF");
  ExpectParseError("go test fuzz v1\n[]byte(\"\\u12\")\n", "exactly 4 hex digits");
  ExpectParseError("go test fuzz v1\n[]byte(\"a\") x\n", ":2:13: unexpected text");
  ExpectParseError("go test fuzz v1\n[]byte(\"a\"))\n", "unexpected text");
  ExpectParseError("go test fuzz v1\n[]byte(\"\xff\")\n", "invalid UTF-8");
  ExpectParseError("go test fuzz v1\n[]byte(\"\xc3\")\n", "invalid UTF-8");          // truncated
  ExpectParseError("go test fuzz v1\n[]byte(\"\xc0\x80\")\n", "invalid UTF-8");      // overlong
  ExpectParseError("go test fuzz v1\n[]byte(\"\xed\xa0\x80\")\n", "invalid UTF-8");  // surrogate
  ExpectParseError(std::string_view("go test fuzz v1\n[]byte(\"\0\")\n", 28), "NUL byte");
}

TEST(GoCorpusTest, FormatsLikeGoPercentQ) {
  const std::vector<uint8_t> input =
      Bytes(std::string_view("\x00\x7f\x80\xff\a\b\f\n\r\t\v\\\"' ~Az", 18));
  EXPECT_EQ(FormatGoCorpusFile(input.data(), input.size()),
            "go test fuzz v1\n"
            "[]byte(\"\\x00\\x7f\\x80\\xff\\a\\b\\f\\n\\r\\t\\v\\\\\\\"' ~Az\")\n");
  EXPECT_EQ(FormatGoCorpusFile(nullptr, 0), "go test fuzz v1\n[]byte(\"\")\n");
}

TEST(GoCorpusTest, FileNameIsSha1PrefixOfTheText) {
  const std::string text = FormatGoCorpusFile(nullptr, 0);
  const std::string name = GoCorpusFileName(text);
  EXPECT_EQ(name.size(), 16u);
  EXPECT_EQ(
      name,
      base::Sha1Hex(reinterpret_cast<const uint8_t*>(text.data()), text.size()).substr(0, 16));
  EXPECT_NE(name, GoCorpusFileName(FormatGoCorpusFile(reinterpret_cast<const uint8_t*>("a"), 1)));
}

TEST(GoCorpusTest, FormatThenParseRoundTripsRandomBytes) {
  std::vector<uint8_t> every_byte(256);
  for (int i = 0; i < 256; ++i) every_byte[i] = static_cast<uint8_t>(i);
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> input;
    if (round == 0) {
      input = every_byte;
    } else {
      input.resize(rng() % 300);
      for (uint8_t& byte : input) byte = static_cast<uint8_t>(rng());
    }
    const std::string text = FormatGoCorpusFile(input.data(), input.size());
    Result<std::vector<uint8_t>> parsed = ParseGoCorpusFile(text, "round_trip");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ASSERT_EQ(*parsed, input) << "round " << round << ": " << text;
  }
}

// Random byte edits, insertions, deletions and truncations of a valid file: every result
// is a value (ok or an error naming the file), never a crash or a hang. Run under ASan in
// sanitizer builds to catch out-of-bounds reads.
TEST(GoCorpusTest, RandomMutationsOfAValidFileNeverCrash) {
  const std::string valid = "go test fuzz v1\n[]byte(\"\\x00\\u00e9\\101\\U0001F600ab\\\"\")\n";
  static constexpr std::string_view kAlphabet = "\\\"`()[]xuU0123456789abcdefABCDEF\n\r \t\xff";
  std::mt19937_64 rng(777);
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      const char c = (rng() % 2) ? kAlphabet[rng() % kAlphabet.size()] : static_cast<char>(rng());
      switch (rng() % 4) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + at, c);
          break;
        case 2:
          text.erase(at, 1);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    Result<std::vector<uint8_t>> parsed = ParseGoCorpusFile(text, "mutant");
    if (parsed.ok()) {
      ++accepted;
    } else {
      ASSERT_EQ(parsed.status().message().rfind("mutant:", 0), 0u) << parsed.status().message();
    }
  }
  // Both outcomes occur, so the loop exercised the parser rather than one early exit.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 20000);
}

TEST(ParseCorpusArgumentsTest, EveryTypeInOrderWithTheFloatBitsGoWrites) {
  auto args = ParseCorpusArguments(
      "pollen fuzz v1\n  string(\"a\\x00\")\n\nint64(-5)\nbool(true)\n[]byte(`raw`)\n"
      "math.Float64frombits(0x7ff8000000000001)\nfloat32( 1.5 )\n",
      "f", "pollen fuzz v1");
  ASSERT_TRUE(args.ok()) << args.status().message();
  ASSERT_EQ(args.value().size(), 6u);
  const auto& a = args.value();
  EXPECT_EQ(a[0].type, "string");
  EXPECT_TRUE(a[0].literal);
  EXPECT_EQ(a[0].bytes, (std::vector<uint8_t>{'a', 0}));
  EXPECT_EQ(a[1].type, "int64");
  EXPECT_FALSE(a[1].literal);
  EXPECT_EQ(a[1].token, "-5");
  EXPECT_EQ(a[2].token, "true");
  EXPECT_EQ(a[3].type, "[]byte");
  EXPECT_EQ(a[3].bytes, (std::vector<uint8_t>{'r', 'a', 'w'}));
  EXPECT_EQ(a[4].type, "float64");
  EXPECT_EQ(a[4].token, "0x7ff8000000000001");
  EXPECT_EQ(a[5].type, "float32");
  EXPECT_EQ(a[5].token, "1.5");
}

TEST(ParseCorpusArgumentsTest, ErrorsNameTheLineAndColumn) {
  auto header = ParseCorpusArguments("go test fuzz v1\nint(1)\n", "f", "pollen fuzz v1");
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.status().message(), "f:1: the first line must be \"pollen fuzz v1\"");
  auto empty = ParseCorpusArguments("pollen fuzz v1\nint64()\n", "f", "pollen fuzz v1");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message().rfind("f:2:", 0), 0u) << empty.status().message();
  auto open = ParseCorpusArguments("pollen fuzz v1\nstring(\"x\n", "f", "pollen fuzz v1");
  EXPECT_FALSE(open.ok());
  auto none = ParseCorpusArguments("pollen fuzz v1\n(5)\n", "f", "pollen fuzz v1");
  EXPECT_FALSE(none.ok());
}

}  // namespace
}  // namespace pollen::base
