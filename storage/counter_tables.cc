#include "storage/counter_tables.h"

#include <algorithm>
#include <utility>

#include "engine/coverage.h"
#include "storage/record_codec.h"

namespace pollen::storage {

void CounterTables::Add(CounterTable table) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = table.id;
  const bool inserted =
      tables_.emplace(id, std::make_shared<const CounterTable>(std::move(table))).second;
  POLLEN_CHECK(inserted);
}

void CounterTables::SetCurrent(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (id == 0) {
    current_.reset();
    return;
  }
  auto it = tables_.find(id);
  POLLEN_CHECK(it != tables_.end());
  current_ = it->second;
}

std::shared_ptr<const CounterTable> CounterTables::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

uint64_t CounterTables::max_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tables_.empty() ? 0 : tables_.rbegin()->first;
}

std::string CounterTables::Encode(const EntryMeta& meta) const {
  const std::shared_ptr<const CounterTable> table = current();
  return table ? EncodeEntryMeta(meta, *table) : EncodeEntryMeta(meta);
}

const CounterTable* CounterTables::Find(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tables_.find(id);
  // Tables are never removed: the pointer stays valid after the lock is released.
  return it == tables_.end() ? nullptr : it->second.get();
}

Result<EntryMeta> CounterTables::Decode(std::string_view bytes) const {
  return DecodeEntryMeta(bytes, [this](uint64_t id) { return Find(id); });
}

void CounterTableChooser::Add(const std::vector<uint32_t>& features) {
  ++entries_;
  uint32_t previous = 0;
  bool first = true;
  for (uint32_t feature : features) {
    const uint32_t counter = engine::FeatureCounter(feature);
    if (first || counter != previous) ++hits_[counter];  // features are sorted
    previous = counter;
    first = false;
  }
}

std::vector<uint32_t> CounterTableChooser::Counters() const {
  const uint64_t min_hits = std::max<uint64_t>(2, (entries_ + 15) / 16);
  std::vector<std::pair<uint64_t, uint32_t>> qualified;  // (hits, counter)
  for (const auto& [counter, hits] : hits_) {
    if (hits >= min_hits) qualified.emplace_back(hits, counter);
  }
  if (qualified.size() > kMaxCounters) {
    // The most hit first; among equals the smaller counter, so the choice is deterministic.
    std::nth_element(qualified.begin(), qualified.begin() + kMaxCounters, qualified.end(),
                     [](const auto& a, const auto& b) {
                       return a.first != b.first ? a.first > b.first : a.second < b.second;
                     });
    qualified.resize(kMaxCounters);
  }
  std::vector<uint32_t> counters;
  counters.reserve(qualified.size());
  for (const auto& [hits, counter] : qualified) counters.push_back(counter);
  std::sort(counters.begin(), counters.end());
  return counters;
}

}  // namespace pollen::storage
