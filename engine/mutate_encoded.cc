// Mutations inside base64 text: PEM certificates and keys, MIME parts, data: URLs, binary
// fields of JSON and XML. A byte mutation of the text almost always breaks the encoding or
// makes garbage of the decoded bytes; here the run is decoded, one mutation of the table is
// applied to the decoded bytes (DER lengths around it fixed, der_lengths.h) or, when they
// are DER, whole elements are erased, copied or replaced, and the result is encoded again
// in the run's own layout (line length, line ends, padding). One time in eight the decoded
// bytes alone are the mutant. Inputs that are DER themselves get the same two kinds of
// change (MutateDer).
#include <algorithm>
#include <array>
#include <cstring>

#include "engine/der_lengths.h"
#include "engine/mutation_ops.h"

namespace pollen::engine::mutation {
namespace {

// A run shorter than this, or without upper case, lower case and digits, is taken for a word.
constexpr size_t kMinChars = 40;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Per byte: its value in base64 (0 to 63), kOther for the other bytes of a run ('=' and
// line ends), kOutside for the rest. A table: the search reads up to 1 KB per call.
constexpr int8_t kOther = -2;
constexpr int8_t kOutside = -1;
constexpr std::array<int8_t, 256> kByteClass = [] {
  std::array<int8_t, 256> t{};
  t.fill(kOutside);
  for (int i = 0; i < 64; i++) t[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  t['='] = kOther;
  t['\n'] = kOther;
  t['\r'] = kOther;
  return t;
}();

int Sextet(uint8_t x) { return kByteClass[x] >= 0 ? kByteClass[x] : -1; }

bool IsRunByte(uint8_t x) { return kByteClass[x] != kOutside; }

struct Run {
  size_t begin = 0;
  size_t end = 0;    // past the last character or '=' (a final line end stays outside)
  size_t chars = 0;  // base64 characters, without '=' and line ends
  size_t line = 0;   // characters per line; 0 when the run is one line
  bool crlf = false;
  bool padded = false;
};

// Reads the run that starts at `b` (a base64 character); it ends at a byte outside the
// alphabet, at a blank line or after its '=' padding. Sets *next to where the search goes on.
bool ReadRun(const uint8_t* data, size_t size, size_t b, Run* run, size_t* next) {
  size_t i = b;
  size_t chars = 0, line = 0, in_line = 0;
  bool upper = false, lower = false, digit = false, crlf = false, padded = false;
  size_t end = b;
  while (i < size && IsRunByte(data[i])) {
    uint8_t x = data[i];
    if (x == '\n' || x == '\r') {
      if (in_line == 0) break;  // a blank line
      if (x == '\r') crlf = true;
      if (line == 0) line = in_line;
      in_line = 0;
      i++;
      if (x == '\r' && i < size && data[i] == '\n') i++;
      continue;
    }
    if (x == '=') {
      padded = true;
      while (i < size && data[i] == '=') i++;
      end = i;
      break;
    }
    upper |= x >= 'A' && x <= 'Z';
    lower |= x >= 'a' && x <= 'z';
    digit |= x >= '0' && x <= '9';
    chars++;
    in_line++;
    i++;
    end = i;
  }
  *next = i > b ? i : b + 1;
  if (chars < kMinChars || !upper || !lower || !digit || chars % 4 == 1) return false;
  // Without '=', a run of whole groups is taken as padded (the usual way, and PEM's).
  *run = Run{b, end, chars, line, crlf, padded || chars % 4 == 0};
  if (line >= chars) run->line = 0;
  return true;
}

// A run that qualifies in data[0, size), searched from a random position onwards (wrapping)
// over at most kMaxScan bytes, so that large inputs without base64 cost little.
constexpr size_t kMaxScan = 1024;

bool FindRun(const uint8_t* data, size_t size, Rng& rng, Run* run) {
  size_t start = rng.BelowSize(size);
  for (size_t back = 0; back < kMaxScan && start > 0 && IsRunByte(data[start - 1]); back++) {
    start--;  // back to its run's start
  }
  size_t scanned = 0;
  size_t i = start;
  while (scanned < std::min(size, kMaxScan)) {
    if (Sextet(data[i]) >= 0) {
      size_t next;
      if (ReadRun(data, size, i, run, &next)) return true;
      scanned += next - i;
      i = next;
    } else {
      scanned++;
      i++;
    }
    if (i >= size) i = 0;
  }
  return false;
}

size_t Decode(const uint8_t* data, const Run& run, uint8_t* out) {
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = run.begin; i < run.end; i++) {
    int s = Sextet(data[i]);
    if (s < 0) continue;
    acc = (acc << 6) | static_cast<uint32_t>(s);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = static_cast<uint8_t>(acc >> bits);
    }
  }
  return n;
}

size_t EncodedChars(size_t n, bool padded) { return padded ? (n + 2) / 3 * 4 : (n * 4 + 2) / 3; }

size_t EncodedSize(const Run& run, size_t n) {
  size_t chars = EncodedChars(n, run.padded);
  size_t breaks = run.line == 0 || chars == 0 ? 0 : (chars - 1) / run.line;
  return chars + breaks * (run.crlf ? 2 : 1);
}

size_t Encode(const Run& run, const uint8_t* in, size_t n, uint8_t* out) {
  size_t o = 0, in_line = 0;
  auto put = [&](char x) {
    if (run.line != 0 && in_line == run.line) {
      if (run.crlf) out[o++] = '\r';
      out[o++] = '\n';
      in_line = 0;
    }
    out[o++] = static_cast<uint8_t>(x);
    in_line++;
  };
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    for (int k = 3; k >= 0; k--) put(kAlphabet[(v >> (6 * k)) & 63]);
  }
  size_t rest = n - i;
  if (rest > 0) {
    uint32_t v = uint32_t{in[i]} << 16;
    if (rest == 2) v |= uint32_t{in[i + 1]} << 8;
    for (size_t k = 0; k <= rest; k++) put(kAlphabet[(v >> (6 * (3 - k))) & 63]);
    if (run.padded) {
      for (size_t k = rest; k < 3; k++) put('=');
    }
  }
  return o;
}

// The cross-over partner's DER: its own bytes when they are DER, else the decoded bytes of
// a base64 run of it, in `spare` (max_size bytes). Null when it has neither.
const uint8_t* PartnerDer(Ctx& c, uint8_t* spare, DerElements* der) {
  if (c.src.crossover == nullptr) return nullptr;
  der->Parse(c.src.crossover, c.src.crossover_size);
  if (der->count() >= 3) return c.src.crossover;
  Run run;
  if (!FindRun(c.src.crossover, c.src.crossover_size, c.rng, &run)) return nullptr;
  if (run.chars / 4 * 3 + 3 > c.max_size) return nullptr;
  size_t n = Decode(c.src.crossover, run, spare);
  der->Parse(spare, n);
  return der->count() > 0 ? spare : nullptr;
}

// One change of whole elements of the DER bytes work[0, n) (a copy of before[0, n), parsed
// as `der`): erase one, insert a copy of one before another, or put it in another's place;
// the copy comes from these bytes or from the cross-over partner's DER (PartnerDer). The
// lengths around the change are fixed.
size_t MutateElements(Ctx& c, const DerElements& der, const uint8_t* before, uint8_t* work,
                      size_t n, size_t limit, uint8_t* spare) {
  size_t op = c.rng.Below(3);  // 0 erase, 1 insert, 2 replace
  const DerElements::Element& dst = der.element(c.rng.BelowSize(der.count()));
  size_t at = dst.tag_at;
  size_t removed = op == 1 ? 0 : dst.end - dst.tag_at;
  const uint8_t* piece = nullptr;
  size_t added = 0;
  if (op != 0) {
    const uint8_t* from = before;
    const DerElements* from_der = &der;
    DerElements partner;
    if (c.rng.Bool()) {
      const uint8_t* p = PartnerDer(c, spare, &partner);
      if (p != nullptr) {
        from = p;
        from_der = &partner;
      }
    }
    const DerElements::Element& src = from_der->element(c.rng.BelowSize(from_der->count()));
    piece = from + src.tag_at;
    added = src.end - src.tag_at;
  }
  size_t m = n - removed + added;
  if (m == 0 || m > limit) return kNoChange;
  std::memmove(work + at + added, work + at + removed, n - at - removed);
  if (added > 0) std::memcpy(work + at, piece, added);
  der.Fix(work, at, static_cast<int64_t>(added) - static_cast<int64_t>(removed), false);
  return m;
}

// Mutates the decoded or DER bytes before[0, n) into work[0, result) of at most `limit`
// bytes: whole elements one time in `elements_one_in` when they are DER, else one other
// mutator of the table with the DER lengths around its change fixed three times in four
// (length checks are code too). Returns kNoChange when nothing applied.
size_t MutateBinary(Ctx& c, const DerElements& der, const uint8_t* before, uint8_t* work, size_t n,
                    size_t limit, uint8_t* spare, uint32_t elements_one_in) {
  std::memcpy(work, before, n);
  if (der.count() > 0 && c.rng.OneIn(elements_one_in)) {
    return MutateElements(c, der, before, work, n, limit, spare);
  }
  const MutationSources sources = NestedSources(c.src);
  Ctx inner{work, n, limit, c.rng, sources, spare, nullptr, c.word, c.word_size};
  size_t m = MutateNested(inner);
  if (m == kNoChange) return kNoChange;
  size_t at = 0;
  while (at < n && at < m && before[at] == work[at]) at++;
  bool fix = !c.rng.OneIn(4);
  if (fix) der.Fix(work, at, static_cast<int64_t>(m) - static_cast<int64_t>(n), true);
  return m;
}

}  // namespace

size_t MutateBase64(Ctx& c) {
  if (c.size < kMinChars) return kNoChange;
  Run run;
  if (!FindRun(c.data, c.size, c.rng, &run)) return kNoChange;
  size_t run_size = run.end - run.begin;
  size_t room = c.max_size - (c.size - run_size);  // for the run's new encoding
  uint8_t* before = c.aux;
  uint8_t* work = c.aux + c.max_size;
  uint8_t* spare = c.aux + 2 * c.max_size;
  size_t n = Decode(c.data, run, before);
  // The largest decoded size whose encoding still fits.
  size_t limit = room / 4 * 3;
  for (size_t e = EncodedSize(run, limit); limit > 0 && e > room; e = EncodedSize(run, limit)) {
    size_t over = (e - room) / 4 * 3 + 1;
    limit = over < limit ? limit - over : 0;
  }
  if (n == 0 || n > limit) return kNoChange;
  // Sometimes the decoded bytes alone: a target that takes PEM also takes DER, and reads it
  // without the decoding (a PEM input reaches mbedtls's parser only when it ends in a NUL).
  if (c.rng.OneIn(8)) {
    std::memcpy(c.data, before, n);
    return n;
  }
  DerElements der;
  der.Parse(before, n);
  size_t m = MutateBinary(c, der, before, work, n, limit, spare, 4);
  if (m == kNoChange) return kNoChange;
  size_t encoded = Encode(run, work, m, c.scratch);
  size_t new_size = c.size - run_size + encoded;
  std::memmove(c.data + run.begin + encoded, c.data + run.end, c.size - run.end);
  std::memcpy(c.data + run.begin, c.scratch, encoded);
  return new_size;
}

size_t MutateDer(Ctx& c) {
  // DER: a constructed element first, holding at least three more and three quarters of
  // the input (random bytes seldom pass).
  if (c.size < 16 || (c.data[0] & 0x20) == 0) return kNoChange;
  DerElements der;
  der.Parse(c.data, c.size);
  if (der.count() < 4 || size_t{der.element(0).end} * 4 < c.size * 3) return kNoChange;
  // The input itself is the unchanged copy MutateBinary compares with.
  uint8_t* work = c.aux + c.max_size;
  size_t m = MutateBinary(c, der, c.data, work, c.size, c.max_size, c.aux + 2 * c.max_size, 2);
  if (m == kNoChange) return kNoChange;
  std::memcpy(c.data, work, m);
  return m;
}

}  // namespace pollen::engine::mutation
