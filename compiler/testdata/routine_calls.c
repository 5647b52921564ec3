// Calls for compiler/routine_log_filter_test.sh: which calls with two or more pointers the
// routine-log pass logs. `same` is external, so every call to it stays a call.
#include <stddef.h>

int same(const char* a, const char* b, size_t n);

static const char* const kWords[] = {"select", "from"};

// Logged: a literal, a table of literals, a local holding a literal.
int literal(const char* token) { return same(token, "select", 6); }
int table(const char* token, int i) { return same(token, kWords[i & 1], 4); }
int local(const char* token) {
  const char* word = "where";
  return same(token, word, 5);
}

// Not logged: buffers and cursors into them, from arguments only.
int buffers(const char* a, const char* b) { return same(a, b, 4); }
int cursor(const char* p, const char* end) {
  const char* q = p + 1;
  return same(q, end, 4);
}
