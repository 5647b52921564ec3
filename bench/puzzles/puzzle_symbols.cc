// Class 6, comparisons the libc interceptors never see: keywords found through a hash table
// and compared byte by byte in the lookup's own loop, as sqlite3's tokenizer finds its
// keywords (a hash of the first byte, the last byte and the length picks a chain; each
// keyword on it is compared case-insensitively, one byte at a time). No call takes the
// keyword as an argument, and a byte that changes the hash sends the lookup to another chain.
// The bug needs "ALTER TABLE <t> RENAME COLUMN <c> TO <c>" (any case) with the same column
// name twice.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "puzzle_util.h"

namespace {

enum Token : uint8_t {
  kIdent,
  kEnd,
  kBad,
  kAbort,
  kAdd,
  kAfter,
  kAlter,
  kAnalyze,
  kAnd,
  kBefore,
  kBegin,
  kBetween,
  kCascade,
  kCheck,
  kColumn,
  kCommit,
  kCreate,
  kDelete,
  kDrop,
  kEach,
  kExists,
  kForeign,
  kIndex,
  kInsert,
  kInstead,
  kKey,
  kOf,
  kOn,
  kPrimary,
  kReferences,
  kRename,
  kRollback,
  kRow,
  kSelect,
  kTable,
  kTo,
  kTrigger,
  kUnique,
  kUpdate,
  kView,
  kWhere,
  kWithout,
};

const struct {
  const char* word;
  Token token;
} kKeywords[] = {
    {"ABORT", kAbort},     {"ADD", kAdd},           {"AFTER", kAfter},
    {"ALTER", kAlter},     {"ANALYZE", kAnalyze},   {"AND", kAnd},
    {"BEFORE", kBefore},   {"BEGIN", kBegin},       {"BETWEEN", kBetween},
    {"CASCADE", kCascade}, {"CHECK", kCheck},       {"COLUMN", kColumn},
    {"COMMIT", kCommit},   {"CREATE", kCreate},     {"DELETE", kDelete},
    {"DROP", kDrop},       {"EACH", kEach},         {"EXISTS", kExists},
    {"FOREIGN", kForeign}, {"INDEX", kIndex},       {"INSERT", kInsert},
    {"INSTEAD", kInstead}, {"KEY", kKey},           {"OF", kOf},
    {"ON", kOn},           {"PRIMARY", kPrimary},   {"REFERENCES", kReferences},
    {"RENAME", kRename},   {"ROLLBACK", kRollback}, {"ROW", kRow},
    {"SELECT", kSelect},   {"TABLE", kTable},       {"TO", kTo},
    {"TRIGGER", kTrigger}, {"UNIQUE", kUnique},     {"UPDATE", kUpdate},
    {"VIEW", kView},       {"WHERE", kWhere},       {"WITHOUT", kWithout},
};
constexpr int kCount = sizeof(kKeywords) / sizeof(kKeywords[0]);
constexpr int kBuckets = 61;

uint8_t Upper(uint8_t c) { return c >= 'a' && c <= 'z' ? static_cast<uint8_t>(c - 32) : c; }

int Hash(const uint8_t* z, size_t n) {
  return static_cast<int>((Upper(z[0]) * 4u ^ Upper(z[n - 1]) * 3u ^ n) % kBuckets);
}

struct Table {
  int8_t head[kBuckets];
  int8_t next[kCount];
  Table() {
    memset(head, -1, sizeof(head));
    for (int i = kCount - 1; i >= 0; i--) {
      const char* w = kKeywords[i].word;
      int h = Hash(reinterpret_cast<const uint8_t*>(w), strlen(w));
      next[i] = head[h];
      head[h] = static_cast<int8_t>(i);
    }
  }
};

Token Lookup(const uint8_t* z, size_t n) {
  static const Table table;
  for (int i = table.head[Hash(z, n)]; i >= 0; i = table.next[i]) {
    const char* w = kKeywords[i].word;
    size_t j = 0;
    while (j < n && w[j] != 0 && Upper(z[j]) == static_cast<uint8_t>(w[j])) j++;
    if (j == n && w[j] == 0) return kKeywords[i].token;
  }
  return kIdent;
}

struct Lexer {
  const uint8_t* p;
  const uint8_t* end;
  const uint8_t* word = nullptr;
  size_t len = 0;

  Token Next() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n')) p++;
    if (p == end) return kEnd;
    word = p;
    while (p < end && ((Upper(*p) >= 'A' && Upper(*p) <= 'Z') || *p == '_')) p++;
    len = static_cast<size_t>(p - word);
    if (len == 0) return kBad;
    return Lookup(word, len);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;
  Lexer lex{data, data + size};
  if (lex.Next() != kAlter) return 0;
  if (lex.Next() != kTable) return 0;
  if (lex.Next() != kIdent) return 0;
  if (lex.Next() != kRename) return 0;
  if (lex.Next() != kColumn) return 0;
  if (lex.Next() != kIdent) return 0;
  const uint8_t* from = lex.word;
  const size_t from_len = lex.len;
  if (lex.Next() != kTo) return 0;
  if (lex.Next() != kIdent) return 0;
  if (lex.len != from_len || memcmp(lex.word, from, from_len) != 0) return 0;
  if (lex.Next() == kEnd) puzzle::Crash();
  return 0;
}
