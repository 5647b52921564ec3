#include "engine/minimizer.h"

#include <string_view>
#include <utility>

namespace pollen::engine {
namespace {

constexpr std::string_view kPrintable = "012789ABCXYZabcxyz !\"#$%&'()*+,.";

bool IsPrintable(uint8_t b) {
  return (b >= 0x20 && b <= 0x7e) || b == '\t' || b == '\n' || b == '\r';
}

// Calls the oracle within the budget, and answers a repeat of the last candidate from
// memory instead of calling again.
class Attempter {
 public:
  Attempter(const MinimizeOracle& oracle, uint64_t max_attempts)
      : oracle_(oracle), max_attempts_(max_attempts) {}

  bool exhausted() const { return attempts_ >= max_attempts_; }
  uint64_t attempts() const { return attempts_; }

  // Whether the candidate is interesting; false without a call once the budget is spent.
  bool Try(const std::vector<uint8_t>& candidate) {
    if (has_last_ && candidate == last_) return last_result_;
    if (exhausted()) return false;
    attempts_++;
    last_result_ = oracle_(candidate.data(), candidate.size());
    last_ = candidate;
    has_last_ = true;
    return last_result_;
  }

 private:
  const MinimizeOracle& oracle_;
  uint64_t max_attempts_;
  uint64_t attempts_ = 0;
  std::vector<uint8_t> last_;
  bool has_last_ = false;
  bool last_result_ = false;
};

// Strategy 1: cut chunks of n = size/2, size/4, ..., 1 bytes off the end while it works.
void CutTail(std::vector<uint8_t>& v, std::vector<uint8_t>& cand, Attempter& at) {
  for (size_t n = v.size() / 2; n != 0 && !at.exhausted(); n /= 2) {
    while (v.size() > n && !at.exhausted()) {
      cand.assign(v.begin(), v.end() - static_cast<std::ptrdiff_t>(n));
      if (!at.Try(cand)) break;
      std::swap(v, cand);
    }
  }
}

// Strategies 2 and 3: remove [i, i+len) at every i, staying at i after a success (the
// bytes after it moved in); with skip_suffix, not the last len bytes. Never empties v.
void RemoveRanges(std::vector<uint8_t>& v, std::vector<uint8_t>& cand, size_t len, bool skip_suffix,
                  Attempter& at) {
  for (size_t i = 0;
       i + len + (skip_suffix ? 1 : 0) <= v.size() && v.size() > len && !at.exhausted();) {
    cand.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i));
    cand.insert(cand.end(), v.begin() + static_cast<std::ptrdiff_t>(i + len), v.end());
    if (at.Try(cand)) {
      std::swap(v, cand);
    } else {
      i++;
    }
  }
}

// Strategy 4: make non-printable bytes printable.
void ReplaceUnprintable(std::vector<uint8_t>& v, std::vector<uint8_t>& cand, Attempter& at) {
  for (size_t i = 0; i < v.size() && !at.exhausted(); i++) {
    if (IsPrintable(v[i])) continue;
    for (char p : kPrintable) {
      cand = v;
      cand[i] = static_cast<uint8_t>(p);
      if (at.Try(cand)) {
        std::swap(v, cand);
        break;
      }
      if (at.exhausted()) break;
    }
  }
}

}  // namespace

std::vector<uint8_t> MinimizeBytes(std::vector<uint8_t> input, const MinimizeOracle& oracle,
                                   uint64_t max_attempts, uint64_t* attempts_made) {
  Attempter at(oracle, max_attempts);
  std::vector<uint8_t> v = std::move(input);
  std::vector<uint8_t> cand;
  cand.reserve(v.size());

  CutTail(v, cand, at);
  // Like Go, do not retry removing the last byte: CutTail's final attempt was exactly that.
  RemoveRanges(v, cand, 1, /*skip_suffix=*/true, at);
  for (size_t len = v.size() / 2; len >= 2 && !at.exhausted(); len /= 2) {
    RemoveRanges(v, cand, len, /*skip_suffix=*/false, at);
  }
  ReplaceUnprintable(v, cand, at);

  if (attempts_made != nullptr) *attempts_made = at.attempts();
  return v;
}

}  // namespace pollen::engine
