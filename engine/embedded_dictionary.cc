#include "engine/embedded_dictionary.h"

#include <unordered_set>

#include "engine/elf_section.h"

namespace pollen::engine {

Result<Dictionary> ParseEmbeddedDictionary(const std::vector<uint8_t>& section) {
  Dictionary dict;
  std::unordered_set<std::string> seen;
  size_t i = 0;
  while (i < section.size()) {
    const size_t length = section[i++];
    if (length == 0) continue;  // padding
    if (length > Dictionary::kMaxEntrySize) {
      return Status::Error("embedded dictionary: a record of " + std::to_string(length) +
                           " bytes at offset " + std::to_string(i - 1) + " (at most " +
                           std::to_string(Dictionary::kMaxEntrySize) + ")");
    }
    if (section.size() - i < length) {
      return Status::Error("embedded dictionary: the record at offset " + std::to_string(i - 1) +
                           " runs past the section's end");
    }
    std::string entry(reinterpret_cast<const char*>(section.data() + i), length);
    i += length;
    if (seen.insert(entry).second) dict.entries.push_back(std::move(entry));
  }
  return dict;
}

Result<Dictionary> ReadEmbeddedDictionary(const std::string& path) {
  auto section = ReadElfSectionFile(path, kEmbeddedDictionarySection, kMaxEmbeddedDictionaryBytes);
  if (!section.ok()) return section.status();
  if (!section.value().has_value()) return Dictionary{};
  auto dict = ParseEmbeddedDictionary(*section.value());
  if (!dict.ok()) return Status::Error(path + ": " + dict.status().message());
  return dict;
}

size_t MergeDictionary(const Dictionary& more, Dictionary* dict) {
  std::unordered_set<std::string> have(dict->entries.begin(), dict->entries.end());
  size_t added = 0;
  for (const std::string& entry : more.entries) {
    if (have.insert(entry).second) {
      dict->entries.push_back(entry);
      added++;
    }
  }
  return added;
}

}  // namespace pollen::engine
