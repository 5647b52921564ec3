#include "node/content_hash.h"

namespace pollen::node {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string HashToHex(const broker::Hash& hash) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex(2 * hash.size(), '0');
  for (size_t i = 0; i < hash.size(); i++) {
    hex[2 * i] = kDigits[hash[i] >> 4];
    hex[2 * i + 1] = kDigits[hash[i] & 15];
  }
  return hex;
}

std::optional<broker::Hash> HashFromHex(std::string_view hex) {
  broker::Hash hash;
  if (hex.size() != 2 * hash.size()) return std::nullopt;
  for (size_t i = 0; i < hash.size(); i++) {
    int hi = HexDigit(hex[2 * i]);
    int lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    hash[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return hash;
}

}  // namespace pollen::node
