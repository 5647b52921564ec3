// Mutators that keep the input's structure: whole lines, length-prefixed records, bracketed
// groups.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "engine/int_field.h"
#include "engine/mutation_ops.h"

namespace pollen::engine::mutation {

namespace {

// [begin, end) of the line (with its '\n', if any) that contains position `at`.
void LineAround(const uint8_t* data, size_t size, size_t at, size_t* begin, size_t* end) {
  size_t b = at;
  while (b > 0 && data[b - 1] != '\n') b--;
  const void* nl = std::memchr(data + at, '\n', size - at);
  *begin = b;
  *end = nl == nullptr ? size : static_cast<size_t>(static_cast<const uint8_t*>(nl) - data) + 1;
}

}  // namespace

// Text protocols and configuration files grow by whole lines: copies a line of the input
// (or of the cross-over partner) to the start or end of a line. Needs a newline in the input.
size_t CopyLine(Ctx& c) {
  if (c.size == 0 || std::memchr(c.data, '\n', c.size) == nullptr) return kNoChange;
  const uint8_t* from = c.data;
  size_t from_size = c.size;
  if (c.src.crossover != nullptr && c.src.crossover_size > 0 && c.rng.OneIn(4)) {
    from = c.src.crossover;
    from_size = c.src.crossover_size;
  }
  size_t lb, le;
  LineAround(from, from_size, c.rng.BelowSize(from_size), &lb, &le);
  size_t n = le - lb;
  if (from[le - 1] == '\n') n--;  // the line's text; its newline is added where it goes
  size_t tb, te;
  LineAround(c.data, c.size, c.rng.BelowSize(c.size), &tb, &te);
  size_t to = c.rng.Bool() ? tb : te;
  if (c.size + n + 1 > c.max_size) return kNoChange;
  // After the input's unfinished last line the copy goes on a line of its own: "\nline"
  // (the input's last section is where a key is often missing); elsewhere "line\n".
  bool after_unfinished = to == c.size && c.data[c.size - 1] != '\n';
  size_t text_at = after_unfinished ? 1 : 0;
  std::memmove(c.scratch + text_at, from + lb, n);  // the gap may move the source
  c.scratch[after_unfinished ? 0 : n] = '\n';
  n++;
  OpenGap(c.data, c.size, to, n);
  std::memcpy(c.data + to, c.scratch, n);
  return c.size + n;
}

// Inserts a copy of a whole record and grows every length that encloses the insertion
// point (length_fields.h). A record is a length field's span with the k bytes before the
// field (its type or tag: k in 0..2, the same for the copy and the place it goes to), and
// it goes where another record starts. Fields that the chain's earlier mutations moved or
// changed are left out.
size_t InsertRecord(Ctx& c) {
  const LengthFields* lf = c.src.lengths;
  if (lf == nullptr || lf->count == 0) return kNoChange;
  // The fields still in place in this input.
  uint8_t valid[LengthFields::kMax];
  size_t nvalid = 0;
  for (uint32_t i = 0; i < lf->count && i < LengthFields::kMax; i++) {
    const LengthFields::Field& f = lf->fields[i];
    if (size_t{f.offset} + f.width + f.value > c.size) continue;
    if (LoadField(c.data + f.offset, f.width, f.big_endian != 0) != f.value) continue;
    valid[nvalid++] = static_cast<uint8_t>(i);
  }
  if (nvalid == 0) return kNoChange;
  size_t k = c.rng.Below(3);
  const LengthFields::Field& src = lf->fields[valid[c.rng.BelowSize(nvalid)]];
  const LengthFields::Field& dst = lf->fields[valid[c.rng.BelowSize(nvalid)]];
  if (src.offset < k || dst.offset < k) return kNoChange;
  size_t from = src.offset - k;
  size_t n = k + src.width + src.value;
  size_t at = dst.offset - k;
  if (c.size + n > c.max_size) return kNoChange;
  std::memcpy(c.scratch, c.data + from, n);
  // Grow the enclosing lengths first, while their offsets are still those of the entry
  // (an enclosing field lies before the insertion point, so the gap does not move it).
  for (size_t i = 0; i < nvalid; i++) {
    const LengthFields::Field& f = lf->fields[valid[i]];
    size_t begin = size_t{f.offset} + f.width;
    if (at < begin || at >= begin + f.value) continue;
    uint64_t grown = uint64_t{f.value} + n;
    if (!FitsIn(grown, f.width)) continue;
    StoreField(c.data + f.offset, f.width, f.big_endian != 0, grown);
  }
  OpenGap(c.data, c.size, at, n);
  std::memcpy(c.data + at, c.scratch, n);
  return c.size + n;
}

namespace {

// The bracket that closes `open`: ')', ']', '}' or '>', or 0 for a byte that opens nothing.
uint8_t Closer(uint8_t open) {
  switch (open) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    case '<':
      return '>';
    default:
      return 0;
  }
}

}  // namespace

namespace {

// One past the bracket that closes the group opening at data[begin] (brackets of its own
// kind only), or 0 when it does not close within kMaxGroup bytes.
constexpr size_t kMaxGroup = 1024;

}  // namespace
namespace {

size_t GroupEnd(const uint8_t* data, size_t size, size_t begin) {
  const uint8_t open = data[begin];
  const uint8_t close = Closer(open);
  size_t depth = 0;
  size_t stop = std::min(size, begin + kMaxGroup);
  for (size_t i = begin; i < stop; i++) {
    if (data[i] == open) {
      depth++;
    } else if (data[i] == close && --depth == 0) {
      return i + 1;
    }
  }
  return 0;
}

}  // namespace

namespace {

// A bracketed group of data, [*begin, *end): among the first four opening brackets at or
// after a random place (wrapping), the first that closes. False when there is none.
bool PickGroup(Rng& rng, const uint8_t* data, size_t size, size_t* begin, size_t* end) {
  if (size < 2) return false;
  size_t start = rng.BelowSize(size);
  int opens = 0;
  for (size_t k = 0; k < size && opens < 4; k++) {
    size_t i = start + k < size ? start + k : start + k - size;
    if (Closer(data[i]) == 0) continue;
    opens++;
    size_t e = GroupEnd(data, size, i);
    if (e != 0) {
      *begin = i;
      *end = e;
      return true;
    }
  }
  return false;
}

}  // namespace

// Nesting without a grammar (Grimoire's recursive splicing, reduced to brackets): a copy of
// a bracketed group, with up to four bytes after it (a repetition such as "{9}" or "*"),
// goes inside a group of the input, just after its opening or before its closing bracket,
// so that the parser's recursion runs one level deeper: "(a{9}){9}" becomes
// "(a{9}(a{9}){9}){9}". A quarter of the time, when the cross-over partner has a group,
// the copy is the partner's. Regular expressions, JSON, SQL and markup nest this way, and a
// level deeper is new coverage (a larger program, another hit-count bucket) that byte
// mutations rarely build.
size_t NestGroup(Ctx& c) {
  size_t begin, end;
  if (!PickGroup(c.rng, c.data, c.size, &begin, &end)) return kNoChange;
  const uint8_t* from = c.data;
  size_t from_size = c.size;
  size_t ub = begin;
  size_t ue = end;
  if (c.src.crossover != nullptr && c.src.crossover_size > 1 && c.rng.OneIn(4)) {
    size_t pb, pe;
    if (PickGroup(c.rng, c.src.crossover, c.src.crossover_size, &pb, &pe)) {
      from = c.src.crossover;
      from_size = c.src.crossover_size;
      ub = pb;
      ue = pe;
    }
  }
  size_t tail = c.rng.BelowSize(5);
  ue = std::min(from_size, ue + tail);
  size_t n = ue - ub;
  if (c.size + n > c.max_size) return kNoChange;
  size_t at = c.rng.Bool() ? begin + 1 : end - 1;
  std::memcpy(c.scratch, from + ub, n);  // the gap may move the source
  OpenGap(c.data, c.size, at, n);
  std::memcpy(c.data + at, c.scratch, n);
  return c.size + n;
}

}  // namespace pollen::engine::mutation
