#include "engine/i2s_stage.h"

#include <string.h>

#include <algorithm>
#include <cstring>

#include "engine/int_field.h"

namespace pollen::engine {
namespace {

uint64_t CandidateHash(size_t pos, size_t n, const uint8_t* bytes, size_t rn) {
  uint64_t h = (pos * 0x9E3779B97F4A7C15ULL) ^ (n << 8) ^ rn;
  for (size_t i = 0; i < rn; i++) h = (h ^ bytes[i]) * 0x100000001B3ULL;
  return h;
}

}  // namespace

void I2sStage::AddCandidate(size_t pos, size_t n, const uint8_t* replacement, size_t rn) {
  if (!seen_.insert(CandidateHash(pos, n, replacement, rn)).second) return;
  Candidate c{static_cast<uint32_t>(pos), static_cast<uint8_t>(n), static_cast<uint8_t>(rn), {}};
  std::memcpy(c.bytes, replacement, rn);
  candidates_.push_back(c);
}

void I2sStage::AddNeedle(const uint8_t* input, size_t size, const uint8_t* needle, size_t n,
                         const uint8_t* replacement, size_t rn) {
  if (n == 0 || n > size || (n == rn && std::memcmp(needle, replacement, n) == 0)) return;
  if (size - n + rn > max_size_) return;
  size_t start = 0;
  for (size_t found = 0; found < kMaxPerNeedle && candidates_.size() < kMaxCandidates; found++) {
    const void* hit = memmem(input + start, size - start, needle, n);
    if (hit == nullptr) return;
    size_t pos = static_cast<size_t>(static_cast<const uint8_t*>(hit) - input);
    start = pos + 1;
    AddCandidate(pos, n, replacement, rn);
    if (start + n > size) return;
  }
}

I2sStage::I2sStage(const CmpLog& log, const uint8_t* input, size_t size, size_t max_size,
                   const std::vector<ColorCandidate>& colored)
    : max_size_(max_size) {
  for (const ColorCandidate& c : colored) {
    if (candidates_.size() >= kMaxCandidates) break;
    if (c.pos + c.width <= size) AddCandidate(c.pos, c.width, c.bytes, c.width);
  }
  for (uint32_t i = 0; i < log.num_words && candidates_.size() < kMaxCandidates; i++) {
    const CmpTable::WordPair& w = log.words[i];
    size_t na = std::min<size_t>(w.size, CmpTable::kMaxWord);
    size_t nb = std::min<size_t>(w.size_b, CmpTable::kMaxWord);
    if (na >= 2) AddNeedle(input, size, w.a, na, w.b, nb);
    if (!w.b_constant && nb >= 2) AddNeedle(input, size, w.b, nb, w.a, na);
  }
  uint8_t needle[24];
  uint8_t repl[24];
  for (uint32_t i = 0; i < log.num_ints && candidates_.size() < kMaxCandidates; i++) {
    const CmpTable::IntPair& p = log.ints[i];
    size_t width = FieldWidth(p.size);
    if (width < 2) continue;
    uint64_t mask = WidthMask(width);
    uint64_t a = p.a & mask;
    uint64_t b = p.b & mask;
    size_t narrow = NarrowestWidth(std::max(a, b));
    size_t widths[2] = {width, narrow >= 2 && narrow < width ? narrow : 0};
    for (size_t wd : widths) {
      if (wd == 0) continue;
      for (int dir = 0; dir < 2; dir++) {
        uint64_t from = dir == 0 ? a : b;
        uint64_t to = dir == 0 ? b : a;
        for (int big = 0; big < 2; big++) {
          StoreField(needle, wd, big != 0, from);
          StoreField(repl, wd, big != 0, to);
          AddNeedle(input, size, needle, wd, repl, wd);
        }
      }
    }
    for (int dir = 0; dir < 2; dir++) {
      size_t n = DecimalText(dir == 0 ? a : b, width, needle);
      size_t rn = DecimalText(dir == 0 ? b : a, width, repl);
      AddNeedle(input, size, needle, n, repl, rn);
    }
  }
}

size_t I2sStage::Build(size_t i, const uint8_t* input, size_t size, uint8_t* out) const {
  const Candidate& c = candidates_[i];
  std::memcpy(out, input, c.pos);
  std::memcpy(out + c.pos, c.bytes, c.rn);
  std::memcpy(out + c.pos + c.rn, input + c.pos + c.n, size - c.pos - c.n);
  return size - c.n + c.rn;
}

}  // namespace pollen::engine
