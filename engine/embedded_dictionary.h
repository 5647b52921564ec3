// The dictionary Pollen's compiler plugin embeds in a target: the literals of its comparisons
// (compiler/literal_dict_pass.cc: strings passed to compare-like calls, wide integer constants
// of compares and switches) and the tokens it tests one byte at a time
// (compiler/byte_chain_pass.cc), in an ELF section `pollen_dict` that the linker concatenates
// from every module (two arrays per module). The records are a length byte
// (1..Dictionary::kMaxEntrySize) followed by that many bytes.
#ifndef POLLEN_ENGINE_EMBEDDED_DICTIONARY_H_
#define POLLEN_ENGINE_EMBEDDED_DICTIONARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/dictionary.h"

namespace pollen::engine {

inline constexpr char kEmbeddedDictionarySection[] = "pollen_dict";
// A section larger than this is refused: 2 × 4096 entries per module of about 10 bytes each
// would need thousands of modules full of distinct literals (entries repeated across modules
// are stored once per module and dropped when read).
inline constexpr size_t kMaxEmbeddedDictionaryBytes = 64 << 20;

// Decodes the section's records, dropping duplicates (the same literal in many modules).
// Padding zero bytes between records (a linker aligning one module's part) are skipped; a
// record that runs past the end is an error.
Result<Dictionary> ParseEmbeddedDictionary(const std::vector<uint8_t>& section);

// The dictionary embedded in the ELF file at `path`: empty when it has none (built without
// the pass); an error when the file cannot be read or its ELF headers or records are broken.
Result<Dictionary> ReadEmbeddedDictionary(const std::string& path);

// Appends the entries of `more` that `dict` does not have yet; returns how many.
size_t MergeDictionary(const Dictionary& more, Dictionary* dict);

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_EMBEDDED_DICTIONARY_H_
