// The learned dictionary's file in the work directory (learned.dict): the words that led to
// new coverage (engine/learned_words.h), in libFuzzer's dictionary format, so the next run
// on this work directory starts with them and a user can pass the file to -dict/--dict.
#ifndef POLLEN_NODE_LEARNED_DICTIONARY_H_
#define POLLEN_NODE_LEARNED_DICTIONARY_H_

#include <string>

#include "base/status.h"
#include "engine/learned_words.h"

namespace pollen::node {

// The file's path in a work directory.
std::string LearnedDictionaryPath(const std::string& workdir);

// Adds the file's words to `words` (uses 1 each). A missing file is no error; a file that
// does not parse is (naming the file and line), and nothing is added.
Status LoadLearnedDictionary(const std::string& path, engine::LearnedWords* words);

// Replaces the file with `words` (WriteTextFile: a reader never sees half of it).
Status SaveLearnedDictionary(const std::string& path, const engine::LearnedWords& words);

}  // namespace pollen::node

#endif  // POLLEN_NODE_LEARNED_DICTIONARY_H_
