// User-supplied dictionaries in libFuzzer's / AFL's text format.
//
// One entry per line, `name="value"` or `"value"`; AFL's `name@level="value"` is accepted
// and the level ignored. Blank lines and lines starting with `#` are skipped. Inside the
// quotes, `\\`, `\"` and `\xNN` are the only escapes; every other byte stands for itself.
// Entries are the raw bytes the mutator inserts into or writes over inputs.
#ifndef POLLEN_ENGINE_DICTIONARY_H_
#define POLLEN_ENGINE_DICTIONARY_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pollen::engine {

struct Dictionary {
  // Longest entry accepted; longer tokens belong in seed inputs, not in a dictionary.
  static constexpr size_t kMaxEntrySize = 128;

  // Decoded entries in file order, each 1..kMaxEntrySize bytes. Duplicates are kept (a
  // duplicate is just picked more often), as libFuzzer does.
  std::vector<std::string> entries;
};

// Parses dictionary text. `origin_name` (usually the file name) prefixes every error, as
// "<origin>:<line>: <what is wrong>", with 1-based line numbers. Never crashes on any input;
// any malformed, empty or over-long entry fails the whole parse.
Result<Dictionary> ParseDictionary(std::string_view text, std::string_view origin_name);

// Reads and parses the file at `path`. An unreadable file is an error naming the path and
// the reason.
Result<Dictionary> LoadDictionaryFile(const std::string& path);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_DICTIONARY_H_
