#include "engine/learned_words.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace pollen::engine {
namespace {

long Find(const LearnedWords& l, const uint8_t* p, size_t n) {
  for (uint32_t i = 0; i < l.count && i < LearnedWords::kMax; i++) {
    if (l.words[i].size == n && std::memcmp(l.words[i].bytes, p, n) == 0) return i;
  }
  return -1;
}

}  // namespace

void LearnedWords::Add(const uint8_t* p, size_t n, uint32_t uses) {
  if (n < 2 || n > kMaxWord) return;
  long at = Find(*this, p, n);
  if (at >= 0) {
    words[at].uses += uses;
    return;
  }
  size_t slot = count;
  if (count >= kMax) {
    slot = 0;
    for (size_t i = 1; i < kMax; i++) {
      if (words[i].uses < words[slot].uses) slot = i;
    }
  } else {
    count++;
  }
  Word& w = words[slot];
  std::memset(&w, 0, sizeof(w));
  std::memcpy(w.bytes, p, n);
  w.size = static_cast<uint8_t>(n);
  w.uses = uses;
}

void LearnedWords::Merge(const LearnedWords& other) {
  for (uint32_t i = 0; i < other.count && i < kMax; i++) {
    const Word& w = other.words[i];
    if (w.size < 2 || w.size > kMaxWord) continue;
    long at = Find(*this, w.bytes, w.size);
    if (at >= 0) {
      words[at].uses = std::max(words[at].uses, w.uses);
    } else {
      Add(w.bytes, w.size, w.uses);
    }
  }
}

std::string LearnedWords::Format(bool with_uses) const {
  std::vector<const Word*> sorted;
  for (uint32_t i = 0; i < count && i < kMax; i++) sorted.push_back(&words[i]);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Word* a, const Word* b) { return a->uses > b->uses; });
  std::string out;
  for (const Word* w : sorted) {
    out += '"';
    for (size_t i = 0; i < w->size; i++) {
      uint8_t c = w->bytes[i];
      if (c == '\\' || c == '"') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c >= 0x20 && c < 0x7f) {
        out += static_cast<char>(c);
      } else {
        char hex[5];
        std::snprintf(hex, sizeof(hex), "\\x%02X", c);
        out += hex;
      }
    }
    out += '"';
    if (with_uses) out += " # Uses: " + std::to_string(w->uses);
    out += '\n';
  }
  return out;
}

}  // namespace pollen::engine
