// Embeds dictionary records in a module: what both dictionary passes of the compiler plugin
// (literal_dict_pass.cc, byte_chain_pass.cc) write into the ELF section `pollen_dict`, which
// the linker concatenates from every module and `pollen` reads (engine/embedded_dictionary.h).
#ifndef POLLEN_COMPILER_DICT_SECTION_H_
#define POLLEN_COMPILER_DICT_SECTION_H_

#include <string>
#include <unordered_set>
#include <vector>

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"

namespace pollen::compiler {

inline constexpr size_t kMinDictEntry = 2;
inline constexpr size_t kMaxDictEntry = 128;  // engine::Dictionary::kMaxEntrySize
inline constexpr size_t kMaxDictEntries = 4096;

// A module's entries, each once, in the order met; entries shorter than kMinDictEntry or
// longer than kMaxDictEntry, and those past kMaxDictEntries, are dropped.
class DictEntries {
 public:
  void Add(std::string bytes);
  // The records: a length byte, then the bytes.
  std::string Records() const;

 private:
  std::vector<std::string> entries_;
  std::unordered_set<std::string> seen_;
};

// The bytes of the constant array `value` points at (through casts and zero-index GEPs),
// with its terminating NUL if it has one, or "" when it is no such thing.
std::string ConstantBytes(const llvm::Value* value);

// Adds a constant global `name` holding `records` to the section, kept through the optimiser
// and the linker (llvm.used). Returns false (and adds nothing) when `records` is empty.
bool EmbedDictRecords(llvm::Module& module, const std::string& records, llvm::StringRef name);

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_DICT_SECTION_H_
