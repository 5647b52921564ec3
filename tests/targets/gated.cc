// Test target for the cluster tests (tests/cluster_test.cc): coverage that fuzzing cannot
// reach in a test's time, behind gates that open only for inputs starting with the 8-byte
// keys "gate:A1x" and "B#9qZk2w". A gate compares a 64-bit FNV-1a hash of the first 8 bytes
// with the key's, so comparison feedback sees the hash, never the key: a node given a key
// as a seed is the only one that can reach what is behind it, until the cluster shares it.
// Behind each gate, a few more branches for fuzzing to find. "!!Crash!" crashes. The keys
// differ from each other in at least six bytes: mutating one never yields another.
#include <cstddef>
#include <cstdint>

namespace {

constexpr uint64_t Fnv1a(const char* s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= static_cast<uint8_t>(s[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

int Behind(const uint8_t* rest, size_t n, int base) {
  if (n == 0) return base;
  if (rest[0] < 'a') return base + 1;
  if (rest[0] < 'n') return n > 1 && rest[1] == rest[0] ? base + 2 : base + 3;
  return base + 4;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t h = Fnv1a(reinterpret_cast<const char*>(data), 8);
  if (h == Fnv1a("gate:A1x", 8)) return Behind(data + 8, size - 8, 10);
  if (h == Fnv1a("B#9qZk2w", 8)) return Behind(data + 8, size - 8, 20);
  if (h == Fnv1a("!!Crash!", 8)) __builtin_trap();
  return 0;
}
