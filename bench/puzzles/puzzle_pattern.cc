// Class 5, a comparison-heavy parser: a regular-expression syntax parsed by recursive
// descent, one byte at a time, as re2's and PCRE's parsers do. Every byte of a pattern goes
// through a chain of comparisons with constants (groups, flags, classes, escapes,
// repetitions), so the comparisons logged on each run are many and mostly beside the point.
// The bug needs a pattern that parses whole and holds a named group, a back-reference to that
// name later on (names compared with memcmp) and a counted repetition {n,m} of the
// back-reference with 2 <= n < m <= 9, for example "(?P<ab>x)(?P=ab){2,5}".
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "puzzle_util.h"

namespace {

constexpr int kMaxNames = 4;
constexpr size_t kMaxName = 8;

struct Parser {
  const char* p;
  const char* end;
  int depth = 0;
  int groups = 0;
  int names = 0;
  char name[kMaxNames][kMaxName];
  size_t name_len[kMaxNames] = {};
  bool bug = false;

  bool AtEnd() const { return p == end; }
  bool Eat(char c) {
    if (p < end && *p == c) {
      p++;
      return true;
    }
    return false;
  }

  // name := [A-Za-z_][A-Za-z0-9_]* (1 to 8 bytes); its bytes stay where they are.
  bool Name(const char** start, size_t* len) {
    *start = p;
    while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
                       (p > *start && *p >= '0' && *p <= '9')))
      p++;
    *len = static_cast<size_t>(p - *start);
    return *len >= 1 && *len <= kMaxName;
  }

  bool Number(int* n) {
    if (p == end || *p < '0' || *p > '9') return false;
    *n = 0;
    while (p < end && *p >= '0' && *p <= '9') {
      *n = *n * 10 + (*p++ - '0');
      if (*n > 1000) return false;
    }
    return true;
  }

  // One repetition operator after an atom; `backref` says whether the atom was one.
  bool Repeat(bool backref) {
    for (;;) {
      if (Eat('*') || Eat('+') || Eat('?')) {
        Eat('?');  // non-greedy
        continue;
      }
      if (p < end && *p == '{') {
        p++;
        int lo = 0, hi = 0;
        if (!Number(&lo)) return false;
        hi = lo;
        if (Eat(',')) {
          if (p < end && *p != '}' && !Number(&hi)) return false;
        }
        if (!Eat('}') || hi < lo) return false;
        if (backref && lo >= 2 && lo < hi && hi <= 9) bug = true;
        backref = false;
        continue;
      }
      return true;
    }
  }

  bool Class() {  // after '['
    Eat('^');
    int items = 0;
    while (p < end && *p != ']') {
      if (Eat('[')) {  // [:alpha:] and its kin
        if (!Eat(':')) return false;
        const char* start;
        size_t len;
        if (!Name(&start, &len) || !Eat(':') || !Eat(']')) return false;
        static const char* const kClasses[] = {"alpha", "digit", "space", "upper",
                                               "lower", "alnum", "punct", "xdigit"};
        bool known = false;
        for (const char* c : kClasses) known |= strlen(c) == len && memcmp(c, start, len) == 0;
        if (!known) return false;
      } else if (Eat('\\')) {
        if (AtEnd()) return false;
        p++;
      } else {
        char lo = *p++;
        if (Eat('-') && p < end && *p != ']') {
          if (*p < lo) return false;
          p++;
        }
      }
      items++;
    }
    return Eat(']') && items > 0;
  }

  bool Escape(bool* backref) {  // after '\\'
    if (AtEnd()) return false;
    char c = *p++;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 's':
      case 'S':
      case 'b':
      case 'B':
      case 'A':
      case 'z':
      case 'n':
      case 't':
      case '\\':
      case '.':
      case '(':
      case ')':
      case '[':
      case '{':
      case '|':
      case '*':
      case '+':
        return true;
      case 'x': {
        for (int i = 0; i < 2; i++) {
          if (AtEnd() || !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
          p++;
        }
        return true;
      }
      default:
        if (c >= '1' && c <= '9') {  // a numbered back-reference
          *backref = c - '0' <= groups;
          return *backref;
        }
        return false;
    }
  }

  bool Group(bool* backref) {  // after '('
    if (Eat('?')) {
      if (Eat(':')) {
        // non-capturing
      } else if (Eat('P')) {
        const char* start;
        size_t len;
        if (Eat('<')) {
          if (!Name(&start, &len) || !Eat('>') || names == kMaxNames) return false;
          for (int i = 0; i < names; i++) {
            if (name_len[i] == len && memcmp(name[i], start, len) == 0) return false;
          }
          memcpy(name[names], start, len);
          name_len[names++] = len;
          groups++;
        } else if (Eat('=')) {
          if (!Name(&start, &len) || !Eat(')')) return false;
          for (int i = 0; i < names; i++) {
            if (name_len[i] == len && memcmp(name[i], start, len) == 0) *backref = true;
          }
          return *backref;
        } else {
          return false;
        }
      } else {
        // flags: (?i) (?s-m:...) and the like
        bool any = false;
        while (p < end && (*p == 'i' || *p == 's' || *p == 'm' || *p == 'U' || *p == '-')) {
          p++;
          any = true;
        }
        if (!any) return false;
        if (Eat(')')) return true;
        if (!Eat(':')) return false;
      }
    } else {
      groups++;
    }
    if (++depth > 8) return false;
    bool ok = Alternation() && Eat(')');
    depth--;
    return ok;
  }

  bool Atom() {
    bool backref = false;
    char c = *p++;
    switch (c) {
      case '(':
        if (!Group(&backref)) return false;
        break;
      case '[':
        if (!Class()) return false;
        break;
      case '\\':
        if (!Escape(&backref)) return false;
        break;
      case '*':
      case '+':
      case '?':
      case '{':
      case ')':
      case ']':
      case '}':
        return false;
      default:  // '.', '^', '$' and literals
        break;
    }
    return Repeat(backref);
  }

  bool Alternation() {
    do {
      while (p < end && *p != '|' && *p != ')') {
        if (!Atom()) return false;
      }
    } while (Eat('|'));
    return true;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 128) return 0;
  Parser parser{reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size};
  if (parser.Alternation() && parser.AtEnd() && parser.bug) puzzle::Crash();
  return 0;
}
