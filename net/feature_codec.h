// Feature lists on the wire ("compressed sparse"): ascending feature ids, each written as
// its difference from the previous one (the first as itself) in LEB128. Coverage features
// cluster by counter, so most differences take one or two bytes instead of four.
#ifndef POLLEN_NET_FEATURE_CODEC_H_
#define POLLEN_NET_FEATURE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pollen::net {

// The encoding of `features`, which need not be sorted: they are sorted and deduplicated.
std::vector<uint8_t> EncodeFeatures(std::vector<uint32_t> features);

// Decodes data[0, size) into `out` (cleared first; may be null to only validate). False
// when the bytes are not a valid encoding: a truncated or over-long varint, a value beyond
// 32 bits, a zero difference (not strictly ascending), or more than `max_count` features.
// Never allocates more than max_count entries.
bool DecodeFeatures(const uint8_t* data, size_t size, size_t max_count, std::vector<uint32_t>* out);

}  // namespace pollen::net

#endif  // POLLEN_NET_FEATURE_CODEC_H_
