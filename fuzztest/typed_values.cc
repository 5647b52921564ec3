#include "fuzztest/typed_values.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "base/go_corpus.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace pollen::fuzztest {
namespace {

// The longest string or byte vector a mutation makes.
constexpr size_t kMaxBytes = 4096;

bool WrongType(const ArgumentText& a, size_t index, const std::string& want, std::string* error) {
  if (a.type == want) return true;
  *error = "argument " + std::to_string(index) + " is " + a.type + ", the test takes " + want;
  return false;
}

bool BadValue(const ArgumentText& a, size_t index, std::string* error) {
  *error = "argument " + std::to_string(index) + ": '" + a.token + "' is not a " + a.type;
  return false;
}

std::string IntegerTypeName(unsigned bits, bool is_signed) {
  return (is_signed ? "int" : "uint") + std::to_string(bits);
}

// One of Pollen's mutations of `bytes`, which may grow up to `max` bytes.
void MutateBytes(std::vector<uint8_t>& bytes, size_t max) {
  size_t size = bytes.size();
  bytes.resize(max);
  size = LLVMFuzzerMutate(bytes.data(), size, max);
  bytes.resize(size);
}

template <typename F>
F MutateFloat(F v, SmallRng& rng) {
  switch (rng.Below(6)) {
    case 0:
      return -v;
    case 1:
      return v * 2;
    case 2:
      return v / 2;
    case 3:
      return v + static_cast<F>(rng.Below(33)) - 16;
    case 4: {
      static const F kSpecial[] = {0,
                                   -0.0f,
                                   1,
                                   -1,
                                   std::numeric_limits<F>::infinity(),
                                   -std::numeric_limits<F>::infinity(),
                                   std::numeric_limits<F>::quiet_NaN(),
                                   std::numeric_limits<F>::min(),
                                   std::numeric_limits<F>::max(),
                                   std::numeric_limits<F>::lowest(),
                                   std::numeric_limits<F>::epsilon(),
                                   std::numeric_limits<F>::denorm_min()};
      return kSpecial[rng.Below(sizeof(kSpecial) / sizeof(kSpecial[0]))];
    }
    default: {  // its bytes, through Pollen's mutators (compared operands included)
      std::vector<uint8_t> bytes(sizeof(F));
      std::memcpy(bytes.data(), &v, sizeof(F));
      MutateBytes(bytes, sizeof(F));
      bytes.resize(sizeof(F), 0);
      std::memcpy(&v, bytes.data(), sizeof(F));
      return v;
    }
  }
}

template <typename F>
std::string EncodeFloat(F v, const char* type) {
  if (std::isnan(v) || std::isinf(v)) {  // as Go writes them: the bits
    char buf[64];
    if constexpr (sizeof(F) == 8) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      std::snprintf(buf, sizeof(buf), "math.Float64frombits(0x%llx)\n",
                    static_cast<unsigned long long>(bits));
    } else {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      std::snprintf(buf, sizeof(buf), "math.Float32frombits(0x%x)\n", bits);
    }
    return buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s(%.*g)\n", type, sizeof(F) == 8 ? 17 : 9,
                static_cast<double>(v));
  return buf;
}

template <typename F>
bool DecodeFloat(const ArgumentText& a, size_t index, const char* type, F* v, std::string* error) {
  if (!WrongType(a, index, type, error)) return false;
  if (a.literal) return BadValue(a, index, error);
  const char* text = a.token.c_str();
  char* end = nullptr;
  errno = 0;
  if (a.token.rfind("0x", 0) == 0) {  // the bits
    unsigned long long bits = std::strtoull(text, &end, 16);
    if (*end != '\0' || errno != 0) return BadValue(a, index, error);
    if constexpr (sizeof(F) == 8) {
      uint64_t b = bits;
      std::memcpy(v, &b, 8);
    } else {
      if (bits > 0xffffffffULL) return BadValue(a, index, error);
      uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(v, &b, 4);
    }
    return true;
  }
  double d = std::strtod(text, &end);
  if (end == text || *end != '\0') return BadValue(a, index, error);
  *v = static_cast<F>(d);
  return true;
}

}  // namespace

bool SplitCorpusText(std::string_view text, std::vector<ArgumentText>* args, std::string* error) {
  auto parsed = base::ParseCorpusArguments(text, "corpus file", kCorpusHeader);
  if (!parsed.ok()) {
    *error = parsed.status().message();
    return false;
  }
  args->clear();
  for (auto& a : parsed.value())
    args->push_back({std::move(a.type), a.literal, std::move(a.bytes), std::move(a.token)});
  return true;
}

std::string EncodeLine(bool v) { return v ? "bool(true)\n" : "bool(false)\n"; }
std::string EncodeLine(double v) { return EncodeFloat(v, "float64"); }
std::string EncodeLine(float v) { return EncodeFloat(v, "float32"); }
std::string EncodeLine(const std::string& v) {
  return "string(" + base::QuoteGoBytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()) +
         ")\n";
}
std::string EncodeLine(const std::vector<uint8_t>& v) {
  return "[]byte(" + base::QuoteGoBytes(v.data(), v.size()) + ")\n";
}

bool DecodeArgument(const ArgumentText& a, size_t index, bool* v, std::string* error) {
  if (!WrongType(a, index, "bool", error)) return false;
  if (a.literal || (a.token != "true" && a.token != "false")) return BadValue(a, index, error);
  *v = a.token == "true";
  return true;
}
bool DecodeArgument(const ArgumentText& a, size_t index, double* v, std::string* error) {
  return DecodeFloat(a, index, "float64", v, error);
}
bool DecodeArgument(const ArgumentText& a, size_t index, float* v, std::string* error) {
  return DecodeFloat(a, index, "float32", v, error);
}
bool DecodeArgument(const ArgumentText& a, size_t index, std::string* v, std::string* error) {
  if (!WrongType(a, index, "string", error)) return false;
  if (!a.literal) return BadValue(a, index, error);
  v->assign(a.bytes.begin(), a.bytes.end());
  return true;
}
bool DecodeArgument(const ArgumentText& a, size_t index, std::vector<uint8_t>* v,
                    std::string* error) {
  if (!WrongType(a, index, "[]byte", error)) return false;
  if (!a.literal) return BadValue(a, index, error);
  *v = a.bytes;
  return true;
}

void Mutate(bool& v, SmallRng&) { v = !v; }
void Mutate(double& v, SmallRng& rng) { v = MutateFloat(v, rng); }
void Mutate(float& v, SmallRng& rng) { v = MutateFloat(v, rng); }
void Mutate(std::string& v, SmallRng&) {
  std::vector<uint8_t> bytes(v.begin(), v.end());
  MutateBytes(bytes, std::max(kMaxBytes, bytes.size()));
  v.assign(bytes.begin(), bytes.end());
}
void Mutate(std::vector<uint8_t>& v, SmallRng&) { MutateBytes(v, std::max(kMaxBytes, v.size())); }

std::string EncodeInteger(int64_t v, unsigned bits, bool is_signed) {
  std::string value = is_signed ? std::to_string(v) : std::to_string(static_cast<uint64_t>(v));
  return IntegerTypeName(bits, is_signed) + "(" + value + ")\n";
}

bool DecodeInteger(const ArgumentText& a, size_t index, unsigned bits, bool is_signed, int64_t* v,
                   std::string* error) {
  // Go writes byte and rune for uint8 and int32 too.
  std::string want = IntegerTypeName(bits, is_signed);
  bool alias = (a.type == "byte" && want == "uint8") || (a.type == "rune" && want == "int32");
  if (!alias && !WrongType(a, index, want, error)) return false;
  if (a.literal || a.token.empty()) return BadValue(a, index, error);
  const char* text = a.token.c_str();
  char* end = nullptr;
  errno = 0;
  if (is_signed) {
    long long x = std::strtoll(text, &end, 0);
    long long lo = bits == 64 ? std::numeric_limits<long long>::min() : -(1LL << (bits - 1));
    long long hi = bits == 64 ? std::numeric_limits<long long>::max() : (1LL << (bits - 1)) - 1;
    if (*end != '\0' || errno != 0 || x < lo || x > hi) return BadValue(a, index, error);
    *v = x;
  } else {
    if (a.token[0] == '-') return BadValue(a, index, error);
    unsigned long long x = std::strtoull(text, &end, 0);
    unsigned long long hi =
        bits == 64 ? std::numeric_limits<unsigned long long>::max() : (1ULL << bits) - 1;
    if (*end != '\0' || errno != 0 || x > hi) return BadValue(a, index, error);
    *v = static_cast<int64_t>(x);
  }
  return true;
}

int64_t MutateInteger(int64_t v, unsigned bits, bool is_signed, SmallRng& rng) {
  uint64_t u = static_cast<uint64_t>(v);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  switch (rng.Below(5)) {
    case 0:
      u += 1 + rng.Below(16);
      break;
    case 1:
      u -= 1 + rng.Below(16);
      break;
    case 2:
      u ^= uint64_t{1} << rng.Below(bits);
      break;
    case 3: {
      const uint64_t top = uint64_t{1} << (bits - 1);
      const uint64_t kInteresting[] = {0,    1,    mask,  top,    top - 1, 0x7f,
                                       0x80, 0xff, 0x100, 0x7fff, 0xffff,  0x10000};
      u = kInteresting[rng.Below(sizeof(kInteresting) / sizeof(kInteresting[0]))];
      break;
    }
    default: {  // its bytes, through Pollen's mutators (compared operands included)
      std::vector<uint8_t> bytes(bits / 8);
      std::memcpy(bytes.data(), &u, bytes.size());
      MutateBytes(bytes, bits / 8);
      bytes.resize(bits / 8, 0);
      u = 0;
      std::memcpy(&u, bytes.data(), bytes.size());
      break;
    }
  }
  u &= mask;
  if (is_signed && bits < 64 && (u >> (bits - 1)) != 0) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

}  // namespace pollen::fuzztest
