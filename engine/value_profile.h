// The value profile (libFuzzer's -use_value_profile, engine-techniques.md 1.4), closer only:
// a comparison site's feature is how close its operands came, and an input counts as new
// for it only when it came closer than every input before at that site. An integer
// comparison has two sites: how many bits agree, and how far apart the values are.
//
// libFuzzer makes every distinct closeness of a site a feature, farther ones too, and the
// corpus fills with inputs that only moved a length or a counter (puzzle "records" lost
// its bug with it, docs/benchmarks.md). Here a site has a ladder of 64 levels, and a run
// reports one feature per site it reached: the highest level, new only above every level
// seen. A site climbs at most 64 times in a whole campaign.
//
// Layout: the profile owns kCounters counter indices (registered as one more
// counter module, so the coordinator's seen map and feature numbering cover them), site s
// level l at index base + s * 64 + l. The coordinator's map marks a site's levels below
// every level it adds (CoverageMap::SetLadders), so its novelty test agrees with Collect's. The
// hooks never write those counters; they keep the best level per site of the current run (Note),
// and the worker turns that into features after the run (Collect), which also resets it. Cost: Note
// is a hash, a compare and a store; Collect touches only the sites the run reached.
#ifndef POLLEN_ENGINE_VALUE_PROFILE_H_
#define POLLEN_ENGINE_VALUE_PROFILE_H_

#include <bit>
#include <cstddef>
#include <cstdint>

#include "engine/coverage.h"

namespace pollen::engine {

class ValueProfile {
 public:
  static constexpr size_t kSites = 1024;  // slots for a hash of the comparison's pc
  static constexpr size_t kLevels = 64;
  static constexpr size_t kCounters = kSites * kLevels;

  // Bits ladder of an integer comparison: 63 when equal, one less per differing bit (a
  // magic number or a set of flags is approached bit by bit).
  static uint32_t BitsLevel(uint64_t a, uint64_t b) { return BitsLevelOf(std::popcount(a ^ b)); }

  // Distance ladder of a comparison of `size` bytes (1..8): 64 minus the bit width of
  // |a - b| modulo 2^(8 * size), capped at 63: each halving of the distance is a level (a
  // sum or a count is approached by halves, signed or not).
  static uint32_t DistanceLevel(uint64_t a, uint64_t b, uint32_t size) {
    uint64_t mask = size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
    uint64_t up = (a - b) & mask, down = (b - a) & mask;
    uint32_t width = static_cast<uint32_t>(std::bit_width(up < down ? up : down));
    return width == 0 ? static_cast<uint32_t>(kLevels - 1) : static_cast<uint32_t>(kLevels) - width;
  }

  // Code addresses are taken relative to `base` (the executable's load address): each worker
  // is a process of its own, placed elsewhere by ASLR, and a comparison must be the same
  // site in all of them (and in a worker restarted after a crash).
  void SetPcBase(uintptr_t base) { pc_base_ = base; }

  // An integer comparison at `pc` climbs two ladders, each a site of its own.
  void NoteInt(uintptr_t pc, uint64_t a, uint64_t b, uint32_t size) {
    uintptr_t at = pc - pc_base_;
    NoteSite(at * 2, BitsLevelOf(CountBits(a ^ b)));
    NoteSite(at * 2 + 1, DistanceLevel(a, b, size));
  }

  // Records that the comparison at `pc` reached `level` (capped at 63) in this run.
  void Note(uintptr_t pc, uint32_t level) { NoteSite(pc - pc_base_, level); }

  // Appends the run's features in ascending counter order, one per site reached: the
  // site's best level, with counter numbers from `base` (bucket 0), stored at
  // out[*written] (then ++*written) while *written < capacity; the rest are dropped but
  // still tested. Sets *any_new (never clears it) when one of them is above every level
  // `seen` (ScanAndClearCounters' seen map) has at its site. Resets the run's state.
  // Precondition: `seen` covers [base, base + kCounters).
  void Collect(uint32_t base, const uint8_t* seen, Feature* out, size_t capacity, size_t* written,
               bool* any_new);

  // Forgets the current run (what the target compared before the fuzzing loop).
  void Reset();

 private:
  static uint32_t BitsLevelOf(int differ) {
    return differ >= static_cast<int>(kLevels) ? 0 : static_cast<uint32_t>(kLevels - 1 - differ);
  }

  // std::popcount compiles to a dozen dependent instructions for the baseline x86-64 that
  // Debian builds for; the popcnt instruction, where the CPU has it (every x86-64 CPU since
  // about 2009), is one. This is on the path of every comparison while the profile is on.
#if defined(__x86_64__)
  static bool HasPopcnt() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt");
  }
#endif
  int CountBits(uint64_t x) const {
#if defined(__x86_64__)
    if (hw_popcount_) {
      uint64_t n;
      asm("popcntq %1, %0" : "=r"(n) : "r"(x));
      return static_cast<int>(n);
    }
#endif
    return std::popcount(x);
  }

  void NoteSite(uintptr_t key, uint32_t level) {
    size_t site = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 54);  // 10 bits
    uint8_t rung = static_cast<uint8_t>((level >= kLevels ? kLevels - 1 : level) + 1);
    if (rung <= best_[site]) return;
    best_[site] = rung;
    touched_[site / 64] |= uint64_t{1} << (site % 64);
  }

  uintptr_t pc_base_ = 0;
#if defined(__x86_64__)
  bool hw_popcount_ = HasPopcnt();
#endif
  uint8_t best_[kSites] = {};  // level + 1 per site; 0: not reached in this run
  uint64_t touched_[kSites / 64] = {};
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_VALUE_PROFILE_H_
