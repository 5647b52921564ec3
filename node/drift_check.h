// Whether a worker's target still behaves as it did when its corpus entries were added.
//
// An in-process target can keep state from one execution to the next: sqlite3's
// `PRAGMA soft_heap_limit=4` lowers a process-wide memory limit that the harness never
// resets, and from then on every statement in that process fails early. A worker that ran
// such an input goes on fuzzing at full speed while covering a fraction of what its inputs
// cover: measured on sqlite3, a third of a 10-minute run went by without one new input.
//
// Each fuzz request starts with the entry itself, unmutated; the worker reports how many
// features that run had. When, several requests in a row, the entry covers less than half
// of the features it had when it joined the corpus, the worker has drifted and is
// restarted (a fresh process: the harness's state from scratch). One entry that covers
// less on a second run (a cache filled by its first run) does not make a streak, and a
// worker is restarted for drift at most once every kMinRestartGapMs. When the first
// requests of a fresh process make a streak again, the process was not to blame (the
// recorded counts are off: entries cut to a smaller max_len): the check turns itself off
// for the worker. The recorded count is the entry's program features only (not the value
// profile's, which an entry that joined while the profile was on has and loses whenever it
// is off: on zstd that alone restarted a worker 12 to 33 times in ten minutes). A count of 0 says
// nothing (a runtime older than the field reports none; an entry run always hits a
// counter).
#ifndef POLLEN_NODE_DRIFT_CHECK_H_
#define POLLEN_NODE_DRIFT_CHECK_H_

#include <cstddef>
#include <cstdint>

namespace pollen::node {

class DriftCheck {
 public:
  static constexpr size_t kMinFeatures = 32;  // entries with fewer say too little
  static constexpr uint32_t kStreak = 3;      // low requests in a row that mean drift
  static constexpr uint64_t kMinRestartGapMs = 5000;

  // One fuzz request's entry run: the entry had `recorded` features when it joined the
  // corpus and `now` in this run. True when the worker should be restarted now.
  bool Observe(size_t recorded, size_t now, uint64_t now_ms) {
    if (off_ || recorded < kMinFeatures || now == 0) return false;  // no evidence either way
    requests_++;
    if (now * 2 >= recorded) {
      low_ = 0;
      return false;
    }
    if (++low_ < kStreak) return false;
    low_ = 0;
    if (restarted_ms_ != 0 && requests_ <= kStreak) {
      off_ = true;  // a fresh process drifted at once: not state, the counts are off
      return false;
    }
    if (restarted_ms_ != 0 && now_ms - restarted_ms_ < kMinRestartGapMs) return false;
    restarted_ms_ = now_ms;
    requests_ = 0;
    return true;
  }

  bool off() const { return off_; }

 private:
  uint32_t low_ = 0;
  uint64_t requests_ = 0;  // observed since the last restart
  uint64_t restarted_ms_ = 0;
  bool off_ = false;
};

}  // namespace pollen::node

#endif  // POLLEN_NODE_DRIFT_CHECK_H_
