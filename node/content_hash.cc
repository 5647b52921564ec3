#include "node/content_hash.h"

#include "engine/hex.h"

namespace pollen::node {

std::string HashToHex(const broker::Hash& hash) {
  return engine::ToHex(hash.data(), hash.size());
}

std::optional<broker::Hash> HashFromHex(std::string_view hex) {
  broker::Hash hash;
  if (hex.size() != 2 * hash.size()) return std::nullopt;
  for (size_t i = 0; i < hash.size(); i++) {
    int hi = engine::HexDigitValue(hex[2 * i]);
    int lo = engine::HexDigitValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    hash[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return hash;
}

}  // namespace pollen::node
