// The argument types of typed fuzz tests (fuzztest/fuzz_test.h): each one's line in a corpus
// file (Go's syntax: `int64(-5)`, `string("a\n")`, `[]byte("\x00")`, `bool(true)`,
// `float64(0.5)`), and its mutator. Mutators draw from a SmallRng seeded by the worker's
// chain and from LLVMFuzzerMutate, so a run repeats with its --seed.
#ifndef POLLEN_FUZZTEST_TYPED_VALUES_H_
#define POLLEN_FUZZTEST_TYPED_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace pollen::fuzztest {

inline constexpr std::string_view kCorpusHeader = "pollen fuzz v1";

// What a test's argument is kept as: its type without const and reference, and a
// std::string for a std::string_view.
template <typename T>
struct StoredType {
  using type = std::remove_cv_t<std::remove_reference_t<T>>;
};
template <>
struct StoredType<std::string_view> {
  using type = std::string;
};
template <typename T>
using Stored = typename StoredType<std::remove_cv_t<std::remove_reference_t<T>>>::type;

// splitmix64: small and good enough to choose among mutations.
class SmallRng {
 public:
  explicit SmallRng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }

 private:
  uint64_t state_;
};

// One argument line of a corpus file, split (storage::ParseCorpusArguments).
struct ArgumentText {
  std::string type;
  bool literal = false;
  std::vector<uint8_t> bytes;
  std::string token;
};

// The argument lines of corpus file `text` ("pollen fuzz v1" first); false and why otherwise.
bool SplitCorpusText(std::string_view text, std::vector<ArgumentText>* args, std::string* error);

// Lines, decoders and mutators of each type. DecodeArgument's `index` (from 1) labels errors.
std::string EncodeLine(bool v);
std::string EncodeLine(double v);
std::string EncodeLine(float v);
std::string EncodeLine(const std::string& v);
std::string EncodeLine(const std::vector<uint8_t>& v);
bool DecodeArgument(const ArgumentText& a, size_t index, bool* v, std::string* error);
bool DecodeArgument(const ArgumentText& a, size_t index, double* v, std::string* error);
bool DecodeArgument(const ArgumentText& a, size_t index, float* v, std::string* error);
bool DecodeArgument(const ArgumentText& a, size_t index, std::string* v, std::string* error);
bool DecodeArgument(const ArgumentText& a, size_t index, std::vector<uint8_t>* v,
                    std::string* error);
void Mutate(bool& v, SmallRng& rng);
void Mutate(double& v, SmallRng& rng);
void Mutate(float& v, SmallRng& rng);
void Mutate(std::string& v, SmallRng& rng);
void Mutate(std::vector<uint8_t>& v, SmallRng& rng);

// Integers go through their 64-bit forms: `bits` and `is_signed` say what they are.
std::string EncodeInteger(int64_t v, unsigned bits, bool is_signed);
bool DecodeInteger(const ArgumentText& a, size_t index, unsigned bits, bool is_signed, int64_t* v,
                   std::string* error);
int64_t MutateInteger(int64_t v, unsigned bits, bool is_signed, SmallRng& rng);

template <typename T>
inline constexpr bool kIsInteger =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>;

template <typename T, std::enable_if_t<kIsInteger<T>, int> = 0>
std::string EncodeLine(T v) {
  return EncodeInteger(static_cast<int64_t>(v), sizeof(T) * 8, std::is_signed_v<T>);
}
template <typename T, std::enable_if_t<kIsInteger<T>, int> = 0>
bool DecodeArgument(const ArgumentText& a, size_t index, T* v, std::string* error) {
  int64_t wide = 0;
  if (!DecodeInteger(a, index, sizeof(T) * 8, std::is_signed_v<T>, &wide, error)) return false;
  *v = static_cast<T>(wide);
  return true;
}
template <typename T, std::enable_if_t<kIsInteger<T>, int> = 0>
void Mutate(T& v, SmallRng& rng) {
  v = static_cast<T>(
      MutateInteger(static_cast<int64_t>(v), sizeof(T) * 8, std::is_signed_v<T>, rng));
}

}  // namespace pollen::fuzztest

#endif  // POLLEN_FUZZTEST_TYPED_VALUES_H_
