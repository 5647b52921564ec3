// Literals for the compiler plugin's dictionary pass to collect
// (tests/target_dictionary_test.cc): a memcmp with a constant length, a compare-like function of
// the target's own, a 32-bit switch case and an equality with a 16-bit field; and a printf format,
// which it must skip. And for the byte-chain pass: a token tested one byte at a time through an
// accessor (re2's `t[0] == 'P' && t[1] == '<'`), one with a NUL in the middle, which cuts it in
// two, and a switch on a byte, whose cases are alternatives and no token. And for the keyword
// tables: one of words looked up byte by byte, and one of messages, which is no such table.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" __attribute__((noinline)) int SameWord(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((a[i] | 0x20) != b[i]) return 0;
  }
  return 1;
}

struct Piece {
  const char* data;
  size_t size;
  char operator[](size_t i) const { return data[i]; }
};

__attribute__((noinline)) int Chained(Piece t) {
  if (t.size <= 16) return 0;  // every test below reads up to t[16]
  if (t[8] == 'Q' && t[9] == '<' && t[10] == '!') return 6;
  if (t[12] == 'K' && t[13] == '7' && t[14] == '\0' && t[15] == 'J' && t[16] == '8') return 9;
  switch (t[11]) {  // cases apart and results out of line: no range check or lookup table
    case 'x':
      return 7;
    case 'm':
      return 31;
  }
  return 0;
}

const struct {
  const char* word;
  int code;
} kOperators[] = {{"lshift", 1}, {"rshift", 2}, {"rotate", 3}, {"xorwith", 4}, {"swap_16", 5}};

const char* const kMessages[] = {"bad input here", "too long by far", "not a number at all",
                                 "unexpected end", "fine"};

// The operator spelled at `text`, compared one byte at a time in the loop: no call, no literal.
__attribute__((noinline)) int Operator(const char* text, size_t size) {
  for (const auto& op : kOperators) {
    size_t i = 0;
    while (i < size && op.word[i] != 0 && text[i] == op.word[i]) i++;
    if (op.word[i] == 0) return op.code;
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  const char* text = reinterpret_cast<const char*>(data);
  if (std::memcmp(text, "MAGIC-LITERAL", size < 13 ? size : 13) == 0) return 1;
  if (SameWord(text, "keyword", 7)) return 2;
  uint32_t tag;
  std::memcpy(&tag, data, 4);
  switch (tag) {
    case 0x13572468:
      return 3;
    case 7:  // one byte: not an entry
      return 4;
  }
  uint16_t field;
  std::memcpy(&field, data + 4, 2);
  if (field == 0xbeef) return 5;
  if (int r = Chained(Piece{text, size})) return r;
  if (int op = Operator(text, size)) return 10 + op;
  if (data[1] == 0xfe) std::puts(kMessages[data[2] % 5]);
  if (data[0] == 0xff) std::printf("a format string %d\n", static_cast<int>(size));
  return 0;
}
