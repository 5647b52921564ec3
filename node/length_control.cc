#include "node/length_control.h"

#include <algorithm>

namespace pollen::node {
namespace {

size_t Log2(size_t x) { return x <= 1 ? 0 : 63 - static_cast<size_t>(__builtin_clzll(x)); }

}  // namespace

void LengthControl::Start(size_t largest, uint64_t runs) {
  last_new_ = runs;
  limit_ = len_control_ == 0 ? max_len_ : std::min(max_len_, std::max<size_t>(4, largest));
}

size_t LengthControl::Limit(uint64_t runs) {
  if (len_control_ == 0 || limit_ >= max_len_) return max_len_;
  const size_t log = std::max<size_t>(1, Log2(limit_));
  if (runs - last_new_ > uint64_t{len_control_} * log) {
    limit_ = std::min(max_len_, limit_ + log);
    last_new_ = runs;
  }
  return limit_;
}

}  // namespace pollen::node
