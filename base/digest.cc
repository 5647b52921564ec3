#include "base/digest.h"

#include "base/hex.h"

namespace pollen::base {

std::string DigestHex(const Digest& d) { return ToHex(d.data(), d.size()); }

std::optional<Digest> ParseDigestHex(std::string_view hex) {
  Digest d;
  if (hex.size() != 2 * d.size()) return std::nullopt;
  for (size_t i = 0; i < d.size(); i++) {
    const int hi = HexDigitValue(hex[2 * i]);
    const int lo = HexDigitValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return d;
}

}  // namespace pollen::base
