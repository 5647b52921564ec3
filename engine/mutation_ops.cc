#include "engine/mutation_ops.h"

#include <string.h>  // memmem (glibc)

#include <algorithm>
#include <cstring>

namespace pollen::engine::mutation {

size_t PlaceBytes(Ctx& c, const uint8_t* bytes, size_t n, bool insert) {
  if (insert && c.size + n > c.max_size) insert = false;
  if (!insert && n > c.size) {
    if (c.size + n > c.max_size) return kNoChange;
    insert = true;
  }
  if (insert) {
    size_t pos = c.rng.BelowSize(c.size + 1);
    OpenGap(c.data, c.size, pos, n);
    std::memcpy(c.data + pos, bytes, n);
    return c.size + n;
  }
  size_t pos = c.rng.BelowSize(c.size - n + 1);
  std::memcpy(c.data + pos, bytes, n);
  return c.size;
}

size_t FindWrapping(const uint8_t* data, size_t size, const uint8_t* needle, size_t n,
                    size_t start) {
  if (n == 0 || n > size) return size;
  const void* hit = memmem(data + start, size - start, needle, n);
  if (hit == nullptr) hit = memmem(data, std::min(size, start + n - 1), needle, n);
  return hit == nullptr ? size : static_cast<size_t>(static_cast<const uint8_t*>(hit) - data);
}

}  // namespace pollen::engine::mutation
