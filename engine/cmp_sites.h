// Operands of the non-constant integer comparisons of one execution, by call site.
//
// The cmp table (cmp_table.h) keeps compared values without saying where they were compared,
// which is all input-to-state needs. Fixing a checksum in later mutants needs more: the same
// comparison, run again on the mutant, to read the value it now expects (REDQUEEN). So the
// comparisons whose both operands were computed at run time (__sanitizer_cov_trace_cmpN, not
// the _const_ variants: a checksum is never compared with a constant) can also be logged here,
// by the caller's pc, one slot per site (direct-mapped; a collision replaces the older site).
//
// Two modes, set by the worker around an execution:
// - kLearn: every site is logged (the corpus entry's own run, once per fuzz request), and
//   the first kTrace comparisons are also kept in order, whatever their site (length fields
//   are compared by one site for every record: length_fields.h reads them there);
// - kWatch: only the sites marked `watched` update their operands (every mutant's run);
// kOff costs the hooks one predictable branch.
#ifndef POLLEN_ENGINE_CMP_SITES_H_
#define POLLEN_ENGINE_CMP_SITES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pollen::engine {

struct CmpSite {
  uintptr_t pc;  // 0: empty slot
  uint64_t a;    // operands of the site's last execution
  uint64_t b;
  uint32_t hits;  // executions of the site since the log was cleared (or armed)
  uint8_t size;   // operand width in bytes
  uint8_t watched;
};

struct CmpSiteLog {
  enum Mode : uint32_t { kOff = 0, kLearn = 1, kWatch = 2 };
  static constexpr size_t kSlots = 128;
  static constexpr size_t kTrace = 256;

  struct Event {
    uint64_t a;
    uint64_t b;
  };

  CmpSite slots[kSlots];
  Event trace[kTrace];
  uint32_t trace_len;
  uint32_t mode;

  static size_t SlotOf(uintptr_t pc) { return ((pc >> 1) ^ (pc >> 8)) % kSlots; }

  // Hot path: called from the non-constant cmp hooks when mode != kOff.
  void Record(uintptr_t pc, uint64_t a, uint64_t b, uint8_t size) {
    CmpSite& s = slots[SlotOf(pc)];
    if (mode == kLearn) {
      if (trace_len < kTrace) trace[trace_len++] = Event{a, b};
      if (s.pc != pc) {
        s.pc = pc;
        s.hits = 0;
        s.watched = 0;
      }
    } else if (s.pc != pc || s.watched == 0) {
      return;
    }
    s.a = a;
    s.b = b;
    s.size = size;
    s.hits++;
  }

  void Clear() { std::memset(this, 0, sizeof(*this)); }

  // Keeps the sites, forgets their operands (before a watched run).
  void ResetHits() {
    for (CmpSite& s : slots) s.hits = 0;
  }
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_CMP_SITES_H_
