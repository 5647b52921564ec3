// Hexadecimal digits: the one place that encodes and decodes them (content hashes as
// libFuzzer names files, \xNN escapes in dictionaries and Go corpus files).
#ifndef POLLEN_BASE_HEX_H_
#define POLLEN_BASE_HEX_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace pollen::base {

// The value of one hex digit (either case), or -1 if `c` is not one.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// data[0, n) as 2n lowercase hex digits.
inline std::string ToHex(const uint8_t* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(2 * n, '0');
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = kDigits[data[i] >> 4];
    hex[2 * i + 1] = kDigits[data[i] & 15];
  }
  return hex;
}

}  // namespace pollen::base

#endif  // POLLEN_BASE_HEX_H_
