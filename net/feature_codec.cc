#include "net/feature_codec.h"

#include <algorithm>

namespace pollen::net {

std::vector<uint8_t> EncodeFeatures(std::vector<uint32_t> features) {
  std::sort(features.begin(), features.end());
  features.erase(std::unique(features.begin(), features.end()), features.end());
  std::vector<uint8_t> out;
  out.reserve(features.size() * 2);
  uint32_t previous = 0;
  for (uint32_t f : features) {
    uint32_t delta = f - previous;
    previous = f;
    while (delta >= 0x80) {
      out.push_back(static_cast<uint8_t>(delta | 0x80));
      delta >>= 7;
    }
    out.push_back(static_cast<uint8_t>(delta));
  }
  return out;
}

bool DecodeFeatures(const uint8_t* data, size_t size, size_t max_count,
                    std::vector<uint32_t>* out) {
  if (out != nullptr) out->clear();
  uint64_t value = 0;
  size_t count = 0;
  size_t i = 0;
  while (i < size) {
    uint64_t delta = 0;
    int shift = 0;
    while (true) {
      if (i == size || shift > 28) return false;  // truncated, or more than 5 bytes
      uint8_t byte = data[i++];
      delta |= static_cast<uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0) break;
    }
    if (count > 0 && delta == 0) return false;
    value += delta;
    if (value > UINT32_MAX || ++count > max_count) return false;
    if (out != nullptr) out->push_back(static_cast<uint32_t>(value));
  }
  return true;
}

}  // namespace pollen::net
