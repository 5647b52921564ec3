// Typed fuzz tests in GoogleTest, as Go's `go test -fuzz` (docs/fuzz-tests.md):
//
//   POLLEN_FUZZ_TEST(Parser, RoundTrips, [](std::string_view text, int64_t limit, bool strict) {
//     ...EXPECT_EQ / ASSERT_TRUE / a crash...
//   }).Seeds({{"[1,2]", 10, true}, {"", 0, false}});
//
// Under plain ctest (or ./binary), Parser.RoundTrips is an ordinary test that runs the seeds
// and every file in testdata/fuzz/Parser.RoundTrips/ beside the source file. With
// `./binary --fuzz=Parser.RoundTrips` (or POLLEN_FUZZ=Parser.RoundTrips) the same binary
// fuzzes it through `pollen fuzz`, with mutators that know each argument's type; a failure
// is written into testdata/fuzz/Parser.RoundTrips/ as a minimized corpus file, one argument
// per line ("pollen fuzz v1", Go's format), which from then on is a regression case.
//
// Argument types: bool, int8_t ... int64_t, uint8_t ... uint64_t, float, double,
// std::string, std::string_view, std::vector<uint8_t> (by value or const reference).
// Build with pollen_add_fuzz_test (cmake/pollen_fuzz_test.cmake).
#ifndef POLLEN_FUZZTEST_FUZZ_TEST_H_
#define POLLEN_FUZZTEST_FUZZ_TEST_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "fuzztest/typed_values.h"

namespace pollen::fuzztest {

// A registered fuzz test, whatever its arguments.
class FuzzTestBase {
 public:
  FuzzTestBase(std::string suite, std::string name, std::string source_file);
  virtual ~FuzzTestBase() = default;

  const std::string& full_name() const { return full_name_; }  // Suite.Name
  // testdata/fuzz/Suite.Name beside the source file that defines the test, or
  // $POLLEN_FUZZ_TESTDATA/Suite.Name when that is set.
  std::string CorpusDir() const;

  // Decodes a corpus file's text and calls the test with its values; false (and why, in
  // *error) when the text is not a corpus file of this test's argument types.
  virtual bool RunText(std::string_view text, std::string* error) = 0;
  // A mutant of `text`: one argument changed by its type's mutator, drawing from `seed`
  // and LLVMFuzzerMutate. Text that does not decode starts from every argument's zero.
  virtual std::string MutateText(std::string_view text, uint32_t seed) = 0;
  // The seeds, as corpus files.
  virtual std::vector<std::string> SeedTexts() const = 0;

 private:
  std::string full_name_;
  std::string source_file_;
};

template <typename... Args>
class FuzzTest : public FuzzTestBase {
 public:
  using Values = std::tuple<Stored<Args>...>;

  FuzzTest(std::string suite, std::string name, std::string file, std::function<void(Args...)> body)
      : FuzzTestBase(std::move(suite), std::move(name), std::move(file)), body_(std::move(body)) {}

  // Inputs to start from, each a tuple of the test's argument values.
  FuzzTest& Seeds(std::vector<Values> seeds) {
    for (auto& s : seeds) seeds_.push_back(std::move(s));
    return *this;
  }

  bool RunText(std::string_view text, std::string* error) override {
    Values values;
    if (!DecodeValues(text, &values, error)) return false;
    std::apply([&](auto&... v) { body_(v...); }, values);
    return true;
  }

  std::string MutateText(std::string_view text, uint32_t seed) override {
    Values values;
    std::string ignored;
    if (!DecodeValues(text, &values, &ignored)) values = Values{};
    SmallRng rng(seed);
    const size_t which = rng.Below(sizeof...(Args));
    size_t i = 0;
    std::apply([&](auto&... v) { ((i++ == which ? Mutate(v, rng) : void()), ...); }, values);
    return EncodeValues(values);
  }

  std::vector<std::string> SeedTexts() const override {
    std::vector<std::string> texts;
    for (const Values& v : seeds_) texts.push_back(EncodeValues(v));
    return texts;
  }

 private:
  static std::string EncodeValues(const Values& values) {
    std::string text(kCorpusHeader);
    text += '\n';
    std::apply([&](const auto&... v) { ((text += EncodeLine(v)), ...); }, values);
    return text;
  }

  static bool DecodeValues(std::string_view text, Values* values, std::string* error) {
    std::vector<ArgumentText> args;
    if (!SplitCorpusText(text, &args, error)) return false;
    if (args.size() != sizeof...(Args)) {
      *error = "the file has " + std::to_string(args.size()) + " arguments, the test takes " +
               std::to_string(sizeof...(Args));
      return false;
    }
    size_t i = 0;
    bool ok = true;
    std::apply(
        [&](auto&... v) { ((ok = ok && DecodeArgument(args[i], i + 1, &v, error), i++), ...); },
        *values);
    return ok;
  }

  std::function<void(Args...)> body_;
  std::vector<Values> seeds_;
};

// Adds `test` to the registry and GoogleTest (as Suite.Name, running the seeds and the
// corpus directory). Returns it.
FuzzTestBase& RegisterFuzzTest(FuzzTestBase* test, const char* file, int line);

namespace internal {
template <typename F>
struct Signature : Signature<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct Signature<R (C::*)(A...) const> {
  using Test = FuzzTest<A...>;
};
template <typename R, typename... A>
struct Signature<R (*)(A...)> {
  using Test = FuzzTest<A...>;
};
}  // namespace internal

template <typename F>
auto& MakeFuzzTest(const char* suite, const char* name, const char* file, int line, F body) {
  using Test = typename internal::Signature<std::decay_t<F>>::Test;
  auto* test = new Test(suite, name, file, body);  // registered for the program's life
  RegisterFuzzTest(test, file, line);
  return *test;
}

}  // namespace pollen::fuzztest

#define POLLEN_FUZZ_TEST_VAR_(suite, name) pollen_fuzz_test_##suite##_##name##_
#define POLLEN_FUZZ_TEST(suite, name, ...)                           \
  [[maybe_unused]] static auto& POLLEN_FUZZ_TEST_VAR_(suite, name) = \
      ::pollen::fuzztest::MakeFuzzTest(#suite, #name, __FILE__, __LINE__, __VA_ARGS__)

#endif  // POLLEN_FUZZTEST_FUZZ_TEST_H_
