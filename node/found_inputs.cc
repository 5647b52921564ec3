#include "node/found_inputs.h"

#include "base/status.h"

namespace pollen::node {

FoundInputs::FoundInputs(size_t max_inputs, size_t max_bytes)
    : max_inputs_(max_inputs), max_bytes_(max_bytes) {}

void FoundInputs::Add(std::vector<uint8_t> input) {
  if (input.empty() || input.size() > max_bytes_ || max_inputs_ == 0) return;
  while (!inputs_.empty() &&
         (inputs_.size() >= max_inputs_ || bytes_ + input.size() > max_bytes_)) {
    bytes_ -= inputs_.front().size();
    inputs_.pop_front();
  }
  bytes_ += input.size();
  inputs_.push_back(std::move(input));
}

const std::vector<uint8_t>& FoundInputs::Pick(engine::Rng& rng) const {
  POLLEN_CHECK(!inputs_.empty());
  return inputs_[rng.BelowSize(inputs_.size())];
}

}  // namespace pollen::node
