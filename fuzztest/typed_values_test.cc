#include "fuzztest/typed_values.h"

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "fuzztest/fuzz_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::fuzztest {
namespace {

using ::testing::HasSubstr;

// A fuzz test object outside the registry: its text codec and mutator.
using SevenArgs =
    FuzzTest<std::string_view, int64_t, bool, std::vector<uint8_t>, uint8_t, double, int16_t>;

SevenArgs MakeTest(std::vector<SevenArgs::Values>* seen) {
  return SevenArgs("S", "N", "/src/x_test.cc",
                   [seen](std::string_view s, int64_t n, bool b, std::vector<uint8_t> v, uint8_t u,
                          double d, int16_t i) {
                     seen->push_back(SevenArgs::Values{std::string(s), n, b, v, u, d, i});
                   });
}

TEST(TypedValuesTest, SeedsAreGoStyleCorpusFilesThatDecodeToTheSameValues) {
  std::vector<SevenArgs::Values> seen;
  SevenArgs test = MakeTest(&seen);
  SevenArgs::Values seed{std::string("a\"b\n\xff", 5), -7, true, {0, 1, 'z'}, 255, 0.5, -32768};
  test.Seeds({seed});
  std::vector<std::string> texts = test.SeedTexts();
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(
      texts[0],
      "pollen fuzz v1\nstring(\"a\\\"b\\n\\xff\")\nint64(-7)\nbool(true)\n[]byte(\"\\x00\\x01z\")\n"
      "uint8(255)\nfloat64(0.5)\nint16(-32768)\n");
  std::string error;
  ASSERT_TRUE(test.RunText(texts[0], &error)) << error;
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], seed);
}

TEST(TypedValuesTest, NaNsAndInfinitiesAreWrittenAsGoWritesThem) {
  EXPECT_EQ(EncodeLine(std::numeric_limits<double>::infinity()),
            "math.Float64frombits(0x7ff0000000000000)\n");
  ArgumentText a{"float64", false, {}, "0x7ff0000000000000"};
  double d = 0;
  std::string error;
  ASSERT_TRUE(DecodeArgument(a, 1, &d, &error)) << error;
  EXPECT_TRUE(std::isinf(d));
}

TEST(TypedValuesTest, WrongFilesAreClearErrors) {
  std::vector<SevenArgs::Values> seen;
  SevenArgs test = MakeTest(&seen);
  std::string error;
  EXPECT_FALSE(test.RunText("go test fuzz v1\n[]byte(\"x\")\n", &error));
  EXPECT_THAT(error, HasSubstr("the first line must be \"pollen fuzz v1\""));
  EXPECT_FALSE(test.RunText("pollen fuzz v1\nstring(\"x\")\n", &error));
  EXPECT_THAT(error, HasSubstr("the file has 1 arguments, the test takes 7"));
  EXPECT_FALSE(test.RunText(
      "pollen fuzz "
      "v1\nint64(1)\nint64(-7)\nbool(true)\n[]byte(\"\")\nuint8(1)\nfloat64(1)\nint16(1)\n",
      &error));
  EXPECT_THAT(error, HasSubstr("argument 1 is int64, the test takes string"));
  EXPECT_FALSE(test.RunText(
      "pollen fuzz "
      "v1\nstring(\"\")\nint64(-7)\nbool(true)\n[]byte(\"\")\nuint8(256)\nfloat64(1)\nint16(1)\n",
      &error));
  EXPECT_THAT(error, HasSubstr("argument 5: '256' is not a uint8"));
  EXPECT_FALSE(test.RunText(
      "pollen fuzz "
      "v1\nstring(\"\")\nint64(x)\nbool(true)\n[]byte(\"\")\nuint8(1)\nfloat64(1)\nint16(1)\n",
      &error));
  EXPECT_THAT(error, HasSubstr("argument 2: 'x' is not a int64"));
  EXPECT_FALSE(test.RunText("pollen fuzz v1\nstring(\"unterminated)\n", &error));
  EXPECT_TRUE(seen.empty());
}

// Outside a worker LLVMFuzzerMutate leaves bytes as they are; the typed mutations still
// change a value, each time one argument, and the result always decodes.
TEST(TypedValuesTest, MutantsChangeOneArgumentAndStayCorpusFiles) {
  std::vector<SevenArgs::Values> seen;
  SevenArgs test = MakeTest(&seen);
  std::string text =
      "pollen fuzz "
      "v1\nstring(\"k\")\nint64(5)\nbool(false)\n[]byte(\"\")\nuint8(3)\nfloat64(2)\nint16(9)\n";
  int changed = 0;
  for (uint32_t seed = 1; seed <= 200; seed++) {
    std::string mutant = test.MutateText(text, seed);
    std::string error;
    ASSERT_TRUE(test.RunText(mutant, &error)) << error << "\n" << mutant;
    changed += mutant != text;
  }
  ASSERT_EQ(seen.size(), 200u);
  EXPECT_GT(changed, 100);
  // Garbage starts from zero values.
  std::string error;
  EXPECT_TRUE(test.RunText(test.MutateText("garbage", 1), &error)) << error;
}

TEST(TypedValuesTest, IntegersWrapAndSignExtendWithinTheirWidth) {
  SmallRng rng(1);
  for (int i = 0; i < 1000; i++) {
    int64_t v = MutateInteger(-3, 8, true, rng);
    EXPECT_GE(v, -128);
    EXPECT_LE(v, 127);
    int64_t u = MutateInteger(200, 8, false, rng);
    EXPECT_GE(u, 0);
    EXPECT_LE(u, 255);
  }
}

}  // namespace
}  // namespace pollen::fuzztest
