// Gates: comparisons between a field of the input and a value computed from the rest of it
// (a checksum, a length that must match what follows, a total), fixed in every mutant.
//
// REDQUEEN's observation: once input-to-state has made such a comparison pass, every later
// mutation of the covered part breaks it again, and the code behind the gate is fuzzed blind.
// A GateSet learns the gates of a corpus entry from the sites of its own run (cmp_sites.h):
// a site whose operands were equal, with that value found in the entry (the field; 1 to 8
// bytes, either byte order). When a mutant then fails the gate because the computed side
// moved while the field kept its value, the worker writes the computed value into the field
// and runs the mutant again. Where the value occurs several times, the places are tried in
// turn until a fix makes the gate pass; a gate that no place makes pass is dropped, and so
// are gates on constants (the computed side must have changed).
//
// Not thread-safe; one per worker. Allocates nothing after construction.
#ifndef POLLEN_ENGINE_GATES_H_
#define POLLEN_ENGINE_GATES_H_

#include <cstddef>
#include <cstdint>

#include "engine/cmp_sites.h"
#include "engine/int_field.h"

namespace pollen::engine {

struct Gate {
  static constexpr size_t kMaxPlaces = 16;
  uintptr_t pc;
  uint32_t slot;  // index in CmpSiteLog::slots
  uint32_t entry_size;
  // Where the value occurs in the entry (the first kMaxPlaces), and the one tried now. A
  // field near the end moves with the size: it is also looked for as far from the end.
  uint32_t places[kMaxPlaces];
  uint32_t place_count;
  uint32_t current;
  uint8_t width;  // 1, 2, 4 or 8
  bool big_endian;
  uint64_t value;     // the field's (and the computed side's) value in the entry
  uint32_t failures;  // fixes at the current place that did not make the gate pass
  bool confirmed;     // a fix at the current place made it pass
};

class GateSet {
 public:
  static constexpr size_t kMaxGates = 6;
  static constexpr uint32_t kMaxFailures = 8;

  // Forgets the gates of the previous entry.
  void Clear() { count_ = 0; }

  // Learns the gates of `entry` from `log` filled by its run in kLearn mode, and marks their
  // sites watched (the log can then go to kWatch). Returns how many gates were found.
  size_t Learn(CmpSiteLog& log, const uint8_t* entry, size_t size);

  // After a mutant data[0, size) ran in kWatch mode: finds the first gate that failed with
  // its field intact and writes the expected value into the field. Returns the index of the
  // fixed gate, or -1 when there is nothing to fix.
  int Fix(const CmpSiteLog& log, uint8_t* data, size_t size);

  // Zeroes the hit counts of the gates' sites: call before every watched run, so that the
  // log shows only that run.
  void ResetHits(CmpSiteLog& log) const;

  // After the fixed mutant ran again: whether gate `index` passed. Gates that keep failing
  // are unwatched and dropped.
  void Settle(int index, CmpSiteLog& log);

  size_t count() const { return count_; }
  const Gate& gate(size_t i) const { return gates_[i]; }

 private:
  Gate gates_[kMaxGates];
  size_t count_ = 0;
};

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_GATES_H_
