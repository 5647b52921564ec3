// Deterministic random numbers for mutation: PCG XSH RR 64/32 (O'Neill, pcg-random.org).
//
// The whole state is two 64-bit words, so a worker can publish it in shared memory and the
// coordinator can replay exactly the mutations the worker made. Everything that draws
// random numbers during mutation must draw them from one Rng, in a fixed order.
#ifndef POLLEN_ENGINE_RNG_H_
#define POLLEN_ENGINE_RNG_H_

#include <cstdint>

namespace pollen::engine {

class Rng {
 public:
  // The stream is fixed by `inc` (forced odd); the position by `state`.
  Rng(uint64_t state, uint64_t inc) : state_(state), inc_(inc | 1) {}

  // Seeds state and stream from one value (splitmix64), so nearby seeds give unrelated streams.
  static Rng FromSeed(uint64_t seed) {
    uint64_t a = SplitMix(seed);
    uint64_t b = SplitMix(a);
    return Rng(a, b);
  }

  uint32_t Next() {
    uint64_t old = state_;
    state_ = old * 6364136223846793005ULL + inc_;
    uint32_t xorshifted = static_cast<uint32_t>(((old >> 18) ^ old) >> 27);
    uint32_t rot = static_cast<uint32_t>(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
  }

  uint64_t Next64() { return (static_cast<uint64_t>(Next()) << 32) | Next(); }

  // Uniform in [0, n); n == 0 returns 0. Lemire's multiply-shift (bias below 2^-32 for
  // small n; good enough for mutation and cheaper than rejection).
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint64_t>(Next()) * n) >> 32);
  }

  // Uniform size_t in [0, n), for sizes that may exceed 32 bits in principle.
  uint64_t BelowSize(uint64_t n) {
    if (n <= 0xffffffffULL) return Below(static_cast<uint32_t>(n));
    return Next64() % n;
  }

  bool OneIn(uint32_t n) { return Below(n) == 0; }
  bool Bool() { return (Next() & 1) != 0; }

  uint64_t state() const { return state_; }
  uint64_t inc() const { return inc_; }

 private:
  static uint64_t SplitMix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  uint64_t state_;
  uint64_t inc_;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_RNG_H_
