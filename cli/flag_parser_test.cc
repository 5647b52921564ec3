#include "cli/flag_parser.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pollen::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// One of each flag type, registered as `pollen fuzz` registers them.
struct Flags {
  uint32_t max_len = 4096;
  uint64_t runs = 0;
  std::string dict;
  bool keep_going = false;
  bool verbose = true;
};

class FlagParserTest : public ::testing::Test {
 protected:
  FlagParserTest() : parser_("fuzz") {
    parser_.Add("max_len", &flags_.max_len, "largest input");
    parser_.Add("runs", &flags_.runs, "executions");
    parser_.Add("dict", &flags_.dict, "dictionary file");
    parser_.Add("keep_going", &flags_.keep_going, "go on after a failure");
    parser_.Add("verbose", &flags_.verbose, "say more");
  }

  // Parses `args` (without the program and command names).
  Status Parse(std::vector<std::string> args) {
    args_ = std::move(args);
    argv_.clear();
    for (auto& a : args_) argv_.push_back(a.data());
    positional_.clear();
    help_ = true;  // Parse must reset it
    return parser_.Parse(static_cast<int>(argv_.size()), argv_.data(), &positional_, &help_);
  }

  Flags flags_;
  FlagParser parser_;
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

TEST_F(FlagParserTest, NoArgumentsKeepsTheDefaults) {
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_EQ(flags_.max_len, 4096u);
  EXPECT_EQ(flags_.runs, 0u);
  EXPECT_EQ(flags_.dict, "");
  EXPECT_FALSE(flags_.keep_going);
  EXPECT_TRUE(flags_.verbose);
  EXPECT_THAT(positional_, IsEmpty());
  EXPECT_FALSE(help_);
}

// Sets environment variables for one test and removes them after it.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(std::vector<std::pair<std::string, std::string>> vars)
      : vars_(std::move(vars)) {
    for (const auto& [k, v] : vars_) setenv(k.c_str(), v.c_str(), 1);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (const auto& [k, v] : vars_) unsetenv(k.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

TEST_F(FlagParserTest, EnvironmentIsIgnoredUnlessEnabled) {
  ScopedEnvironment env({{"POLLEN_MAX_LEN", "77"}, {"POLLEN_KEEP_GOING", "true"}});
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_EQ(flags_.max_len, 4096u);
  EXPECT_FALSE(flags_.keep_going);
}

TEST_F(FlagParserTest, EnvironmentSetsFlagsAndTheCommandLineWins) {
  ScopedEnvironment env({{"POLLEN_MAX_LEN", "77"},
                         {"POLLEN_KEEP_GOING", "true"},
                         {"POLLEN_VERBOSE", "0"},
                         {"POLLEN_DICT", "from-env.dict"}});
  parser_.EnableEnvironment();
  Status st = Parse({"--dict=from-flag.dict"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.max_len, 77u);
  EXPECT_TRUE(flags_.keep_going);
  EXPECT_FALSE(flags_.verbose);
  EXPECT_EQ(flags_.dict, "from-flag.dict");
  EXPECT_THAT(parser_.Usage(), HasSubstr("may also be set in the environment"));
}

TEST_F(FlagParserTest, BadEnvironmentValueNamesTheVariable) {
  ScopedEnvironment env(std::vector<std::pair<std::string, std::string>>{{"POLLEN_RUNS", "many"}});
  parser_.EnableEnvironment();
  Status st = Parse({});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("environment variable POLLEN_RUNS"));
  EXPECT_THAT(st.message(), HasSubstr("'many'"));
}

TEST_F(FlagParserTest, AnEmptyEnvironmentVariableIsUnset) {
  ScopedEnvironment env({{"POLLEN_KEEP_GOING", ""}, {"POLLEN_MAX_LEN", ""}});
  parser_.EnableEnvironment();
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_FALSE(flags_.keep_going);  // a bare --keep-going would set it
  EXPECT_EQ(flags_.max_len, 4096u);
}

// A three-way setting: true and false as a bool's (bare: true), or auto; anything else is an
// error naming the flag and the choices.
TEST(FlagParserSettingTest, TrueFalseAutoAndBare) {
  node::Setting vp = node::Setting::kAuto;
  FlagParser parser("fuzz");
  parser.Add("use_value_profile", &vp, "comparisons");
  auto parse = [&](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::vector<std::string> positional;
    bool help = false;
    return parser.Parse(static_cast<int>(argv.size()), argv.data(), &positional, &help);
  };
  EXPECT_THAT(parser.Usage(), HasSubstr("[auto]"));
  ASSERT_TRUE(parse({"--use-value-profile", "corpus"}).ok());
  EXPECT_EQ(vp, node::Setting::kOn);
  ASSERT_TRUE(parse({"-use_value_profile=0"}).ok());
  EXPECT_EQ(vp, node::Setting::kOff);
  ASSERT_TRUE(parse({"--use-value-profile=auto"}).ok());
  EXPECT_EQ(vp, node::Setting::kAuto);
  ASSERT_TRUE(parse({"--use-value-profile=true"}).ok());
  EXPECT_EQ(vp, node::Setting::kOn);
  Status bad = parse({"--use-value-profile=sometimes"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(),
              HasSubstr("--use-value-profile expects true, false or auto, got 'sometimes'"));
}

// A second flag of a name would never be set (the first takes every value): refused at once.
TEST(FlagParserDeathTest, AFlagNameTwiceIsAProgrammingError) {
  uint32_t a = 0, b = 0;
  FlagParser parser("repro");
  parser.Add("timeout", &a, "the input's");
  EXPECT_DEATH(parser.Add("timeout", &b, "the controller's"),
               "flag --timeout registered twice for 'pollen repro'");
}

// The environment's example in the usage is one of the command's own flags.
TEST_F(FlagParserTest, UsageGivesTheEnvironmentOfItsFirstFlag) {
  parser_.EnableEnvironment();
  EXPECT_THAT(parser_.Usage(), HasSubstr("POLLEN_MAX_LEN=x for --max-len=x"));
}

TEST(FlagEnvironmentNameTest, CapitalsWithPrefix) {
  EXPECT_EQ(FlagEnvironmentName("node_id"), "POLLEN_NODE_ID");
  EXPECT_EQ(FlagEnvironmentName("http"), "POLLEN_HTTP");
}

TEST_F(FlagParserTest, NameEqualsValue) {
  Status st = Parse({"--max-len=100", "--runs=18446744073709551615", "--dict=a=b.dict"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.max_len, 100u);
  EXPECT_EQ(flags_.runs, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(flags_.dict, "a=b.dict");  // only the first '=' separates
}

TEST_F(FlagParserTest, NameSpaceValue) {
  Status st = Parse({"--max-len", "7", "--dict", "x.dict", "--runs", "0"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.max_len, 7u);
  EXPECT_EQ(flags_.dict, "x.dict");
  EXPECT_EQ(flags_.runs, 0u);
  EXPECT_THAT(positional_, IsEmpty());
}

TEST_F(FlagParserTest, ValueThatLooksLikeAFlagIsTakenAsTheValue) {
  Status st = Parse({"--dict", "--weird-name.dict"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.dict, "--weird-name.dict");
}

TEST_F(FlagParserTest, LibFuzzerSingleDashStyle) {
  Status st = Parse({"-max_len=64", "-runs=1000", "-dict=fuzz.dict", "-keep_going=1"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.max_len, 64u);
  EXPECT_EQ(flags_.runs, 1000u);
  EXPECT_EQ(flags_.dict, "fuzz.dict");
  EXPECT_TRUE(flags_.keep_going);
}

TEST_F(FlagParserTest, DashesAndUnderscoresAreTheSame) {
  ASSERT_TRUE(Parse({"--max-len=1"}).ok());
  EXPECT_EQ(flags_.max_len, 1u);
  ASSERT_TRUE(Parse({"--max_len=2"}).ok());
  EXPECT_EQ(flags_.max_len, 2u);
  ASSERT_TRUE(Parse({"-max-len=3"}).ok());
  EXPECT_EQ(flags_.max_len, 3u);
  ASSERT_TRUE(Parse({"--keep_going"}).ok());
  EXPECT_TRUE(flags_.keep_going);
}

TEST_F(FlagParserTest, Booleans) {
  ASSERT_TRUE(Parse({"--keep-going", "--verbose=false"}).ok());
  EXPECT_TRUE(flags_.keep_going);
  EXPECT_FALSE(flags_.verbose);

  ASSERT_TRUE(Parse({"--keep-going=false", "--verbose=true"}).ok());
  EXPECT_FALSE(flags_.keep_going);
  EXPECT_TRUE(flags_.verbose);

  ASSERT_TRUE(Parse({"--keep-going=1", "--verbose=0"}).ok());
  EXPECT_TRUE(flags_.keep_going);
  EXPECT_FALSE(flags_.verbose);

  ASSERT_TRUE(Parse({"--verbose="}).ok());  // an empty value is the bare flag
  EXPECT_TRUE(flags_.verbose);
}

TEST_F(FlagParserTest, BareBooleanDoesNotTakeTheNextArgument) {
  ASSERT_TRUE(Parse({"--keep-going", "corpus"}).ok());
  EXPECT_TRUE(flags_.keep_going);
  EXPECT_THAT(positional_, ElementsAre("corpus"));
}

TEST_F(FlagParserTest, PositionalArgumentsKeepTheirOrder) {
  Status st = Parse({"target", "--runs=5", "corpus1", "-", "--max-len", "9", "corpus2"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_THAT(positional_, ElementsAre("target", "corpus1", "-", "corpus2"));
  EXPECT_EQ(flags_.runs, 5u);
  EXPECT_EQ(flags_.max_len, 9u);
}

TEST_F(FlagParserTest, DoubleDashEndsTheFlags) {
  Status st = Parse({"--runs=5", "--", "--runs=6", "-x", "--help", "--"});
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(flags_.runs, 5u);
  EXPECT_FALSE(help_);
  EXPECT_THAT(positional_, ElementsAre("--runs=6", "-x", "--help", "--"));
}

TEST_F(FlagParserTest, HelpInEveryForm) {
  for (const char* form : {"--help", "-h", "-help"}) {
    ASSERT_TRUE(Parse({"target", form, "--runs=3"}).ok()) << form;
    EXPECT_TRUE(help_) << form;
    EXPECT_EQ(flags_.runs, 3u) << form;  // the rest is still parsed
    EXPECT_THAT(positional_, ElementsAre("target")) << form;
  }
  ASSERT_TRUE(Parse({"target"}).ok());
  EXPECT_FALSE(help_);
}

TEST_F(FlagParserTest, UnknownFlag) {
  Status st = Parse({"--max-len=1", "--nope=3"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unknown flag --nope=3 for 'pollen fuzz' (see pollen fuzz --help)");

  st = Parse({"-seed", "1"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unknown flag -seed for 'pollen fuzz' (see pollen fuzz --help)");

  // A prefix of a flag is not the flag.
  st = Parse({"--max=1"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "unknown flag --max=1 for 'pollen fuzz' (see pollen fuzz --help)");
}

TEST_F(FlagParserTest, MissingValue) {
  Status st = Parse({"target", "--max-len"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--max-len needs a value");

  st = Parse({"-dict"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--dict needs a value");
}

TEST_F(FlagParserTest, NotANumber) {
  for (const char* bad : {"abc", "", "-1", "+1", "1.5", "12x", " 1", "0x10"}) {
    Status st = Parse({std::string("--max-len=") + bad});
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.message(),
              std::string("--max-len expects a non-negative integer, got '") + bad + "'");
  }
  Status st = Parse({"--runs", "ten"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--runs expects a non-negative integer, got 'ten'");
}

TEST_F(FlagParserTest, Uint32Overflow) {
  ASSERT_TRUE(Parse({"--max-len=4294967295"}).ok());
  EXPECT_EQ(flags_.max_len, 4294967295u);

  flags_.max_len = 17;
  Status st = Parse({"--max-len=4294967296"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--max-len is too large: 4294967296 (at most 4294967295)");
  EXPECT_EQ(flags_.max_len, 17u);  // a rejected value leaves the flag alone

  st = Parse({"--max-len=99999999999"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--max-len is too large: 99999999999 (at most 4294967295)");
}

TEST_F(FlagParserTest, Uint64Overflow) {
  Status st = Parse({"--runs=18446744073709551616"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "--runs is too large: 18446744073709551616 (at most 18446744073709551615)");

  st = Parse({"--runs=99999999999999999999"});  // 20 digits, wraps a naive v*10+d
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "--runs is too large: 99999999999999999999 (at most 18446744073709551615)");

  st = Parse({"--runs=184467440737095516150"});  // 21 digits
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("--runs"));
}

TEST_F(FlagParserTest, LeadingZerosAreDecimal) {
  ASSERT_TRUE(Parse({"--max-len=0010"}).ok());
  EXPECT_EQ(flags_.max_len, 10u);
}

TEST_F(FlagParserTest, BadBool) {
  for (const char* bad : {"yes", "no", "2", "TRUE", "False"}) {
    Status st = Parse({std::string("--keep-going=") + bad});
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.message(), std::string("--keep-going expects true or false, got '") + bad + "'");
  }
}

TEST_F(FlagParserTest, UsageListsEveryFlagWithItsDefault) {
  std::string usage = parser_.Usage();
  EXPECT_THAT(usage, HasSubstr("--max-len=N"));
  EXPECT_THAT(usage, HasSubstr("largest input [4096]"));
  EXPECT_THAT(usage, HasSubstr("--runs=N"));
  EXPECT_THAT(usage, HasSubstr("--dict=PATH"));
  EXPECT_THAT(usage, HasSubstr("  --keep-going "));
  EXPECT_THAT(usage, ::testing::Not(HasSubstr("--keep-going=")));
  EXPECT_EQ(std::count(usage.begin(), usage.end(), '\n'), 5);
}

TEST(ParseUnsignedTest, Bounds) {
  uint64_t v = 123;
  ASSERT_TRUE(ParseUnsigned("n", "0", 10, &v).ok());
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(ParseUnsigned("n", "10", 10, &v).ok());
  EXPECT_EQ(v, 10u);
  Status st = ParseUnsigned("some_flag", "11", 10, &v);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "--some-flag is too large: 11 (at most 10)");
  EXPECT_EQ(v, 10u);
}

}  // namespace
}  // namespace pollen::cli
