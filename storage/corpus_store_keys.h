// The names inside a corpus store: its column families and the keys of its campaign
// table (storage/corpus_store*.cc, and store_inspect.cc, which reads a store without
// opening it as a CorpusStore).
#ifndef POLLEN_STORAGE_CORPUS_STORE_KEYS_H_
#define POLLEN_STORAGE_CORPUS_STORE_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace pollen::storage {

inline constexpr char kInputsCf[] = "inputs";
inline constexpr char kMetaCf[] = "meta";
inline constexpr char kCrashesCf[] = "crashes";
inline constexpr char kCampaignCf[] = "campaign";
inline constexpr char kMergeCf[] = "merge";
inline constexpr char kSupersededCf[] = "superseded";
inline constexpr char kFormatVersionKey[] = "format_version";
inline constexpr char kTargetKey[] = "target";
inline constexpr char kBuildIdKey[] = "build_id";
inline constexpr std::string_view kCounterTablePrefix = "counter_table/";  // + decimal id

inline std::string CounterTableKey(uint64_t id) {
  return std::string(kCounterTablePrefix) + std::to_string(id);
}

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_CORPUS_STORE_KEYS_H_
