// Fuzzes engine/elf_section.h and engine/embedded_dictionary.h with arbitrary bytes as a
// target binary: the ELF headers and the `pollen_dict` records come from a file `pollen
// fuzz` is pointed at.
//
// Checks, beyond "no crash under ASan/UBSan" (and no read outside the bytes: the reader is
// handed only these): a section found is never larger than the limit; every decoded entry is
// 1..kMaxEntrySize bytes and unique; re-encoding the entries and decoding again gives them back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "engine/elf_section.h"
#include "engine/embedded_dictionary.h"

namespace {

using pollen::engine::Dictionary;

constexpr size_t kLimit = 4096;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "embedded_dictionary_fuzzer: %s\n", what);
  std::abort();
}

void CheckRecords(const std::vector<uint8_t>& section) {
  auto dict = pollen::engine::ParseEmbeddedDictionary(section);
  if (!dict.ok()) return;
  std::set<std::string> seen;
  std::vector<uint8_t> encoded;
  for (const std::string& entry : dict->entries) {
    if (entry.empty() || entry.size() > Dictionary::kMaxEntrySize)
      Fail("an entry outside 1..128 bytes");
    if (!seen.insert(entry).second) Fail("a duplicate entry");
    encoded.push_back(static_cast<uint8_t>(entry.size()));
    encoded.insert(encoded.end(), entry.begin(), entry.end());
  }
  auto again = pollen::engine::ParseEmbeddedDictionary(encoded);
  if (!again.ok() || again->entries != dict->entries) Fail("re-encoded entries decode differently");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto read = [data, size](uint64_t offset, void* out, size_t n) {
    if (offset > size || size - offset < n) return false;
    std::memcpy(out, data + offset, n);
    return true;
  };
  auto section =
      pollen::engine::ReadElfSection(read, pollen::engine::kEmbeddedDictionarySection, kLimit);
  if (section.ok() && section->has_value()) {
    if ((*section)->size() > kLimit) Fail("a section over the limit");
    CheckRecords(**section);
  }
  CheckRecords(std::vector<uint8_t>(data, data + size));  // the records alone
  return 0;
}
