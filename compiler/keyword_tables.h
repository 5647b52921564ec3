// Keyword tables: a module's constant arrays of words, for the plugin's dictionary.
#ifndef POLLEN_COMPILER_KEYWORD_TABLES_H_
#define POLLEN_COMPILER_KEYWORD_TABLES_H_

#include "compiler/dict_section.h"
#include "llvm/IR/Module.h"

namespace pollen::compiler {

// Adds to `entries` the words of every keyword table in `module`: a constant global array
// of at least kMinTableWords elements, each a pointer to a constant string or a struct whose
// first such pointer is one, in which most strings are words (2 to 32 letters, digits and
// underscores). A tokenizer's keywords, a function-name table, a pragma table; not tables of
// messages, whose strings have spaces.
void AddKeywordTables(llvm::Module& module, DictEntries* entries);

inline constexpr unsigned kMinTableWords = 4;

}  // namespace pollen::compiler

#endif  // POLLEN_COMPILER_KEYWORD_TABLES_H_
