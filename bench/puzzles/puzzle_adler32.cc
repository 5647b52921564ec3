// Class 1, checksums and length fields together, as in zlib streams:
//   "ADLR" | length n (2 bytes, big-endian) | n bytes of text | Adler-32 of the text (4 bytes,
//   big-endian)
// The text is "key=value" lines; the bug needs "mode=" with the number 4242 and "level="
// with a number above 8 (parsed with strtol). Changing the text changes the Adler-32, and
// a longer or shorter text also needs a new length.
#include <cstdlib>
#include <cstring>
#include <string>

#include "puzzle_util.h"

namespace {

uint32_t Adler32(const uint8_t* p, size_t n) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 10 || size > 512) return 0;
  if (std::memcmp(data, "ADLR", 4) != 0) return 0;
  size_t n = puzzle::Be16(data + 4);
  if (n != size - 10) return 0;
  const uint8_t* text = data + 6;
  if (Adler32(text, n) != puzzle::Be32(data + 6 + n)) return 0;
  std::string s(reinterpret_cast<const char*>(text), n);
  long mode = -1, level = -1;
  size_t at = 0;
  while (at < s.size()) {
    size_t end = s.find('\n', at);
    if (end == std::string::npos) end = s.size();
    std::string line = s.substr(at, end - at);
    if (line.compare(0, 5, "mode=") == 0) mode = std::strtol(line.c_str() + 5, nullptr, 10);
    if (line.compare(0, 6, "level=") == 0) level = std::strtol(line.c_str() + 6, nullptr, 10);
    at = end + 1;
  }
  if (mode == 4242 && level > 8) puzzle::Crash();
  return 0;
}
