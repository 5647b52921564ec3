// Class 6, comparisons the libc interceptors never see: a query language whose keywords are
// looked up in a table with a hand-written case-insensitive compare, byte by byte. The bug
// needs "SELECT <ident> FROM <ident> WHERE <ident> BETWEEN <n> AND <n>" (any case) with the
// first number below the second. Only one-byte comparisons show the keywords.
#include <cstddef>
#include <cstdint>

#include "puzzle_util.h"

namespace {

enum Token { kIdent, kNumber, kSelect, kFrom, kWhere, kBetween, kAnd, kEnd, kBad };

const struct {
  const char* word;
  Token token;
} kKeywords[] = {
    {"select", kSelect}, {"from", kFrom}, {"where", kWhere}, {"between", kBetween}, {"and", kAnd}};

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool SameWord(const char* a, size_t n, const char* keyword) {
  size_t i = 0;
  for (; i < n && keyword[i] != 0; i++) {
    if (Lower(a[i]) != keyword[i]) return false;
  }
  return i == n && keyword[i] == 0;
}

struct Lexer {
  const char* p;
  const char* end;
  long number = 0;

  Token Next() {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t')) p++;
    if (p == end) return kEnd;
    const char* start = p;
    if (*p >= '0' && *p <= '9') {
      number = 0;
      while (p < end && *p >= '0' && *p <= '9') number = number * 10 + (*p++ - '0');
      return kNumber;
    }
    while (p < end && ((Lower(*p) >= 'a' && Lower(*p) <= 'z') || *p == '_')) p++;
    if (p == start) return kBad;
    for (const auto& k : kKeywords) {
      if (SameWord(start, static_cast<size_t>(p - start), k.word)) return k.token;
    }
    return kIdent;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;
  Lexer lex{reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size};
  // A recursive-descent parser would check each step at its own place, as here.
  if (lex.Next() != kSelect) return 0;
  if (lex.Next() != kIdent) return 0;
  if (lex.Next() != kFrom) return 0;
  if (lex.Next() != kIdent) return 0;
  if (lex.Next() != kWhere) return 0;
  if (lex.Next() != kIdent) return 0;
  if (lex.Next() != kBetween) return 0;
  if (lex.Next() != kNumber) return 0;
  long first = lex.number;
  if (lex.Next() != kAnd) return 0;
  if (lex.Next() != kNumber) return 0;
  if (lex.Next() == kEnd && first < lex.number) puzzle::Crash();
  return 0;
}
