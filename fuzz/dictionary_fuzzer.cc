// Fuzzes engine/dictionary.h's ParseDictionary with arbitrary text, as a user's --dict file.
//
// Checks, beyond "no crash under ASan/UBSan": every parsed entry is 1..kMaxEntrySize bytes;
// an error names the origin; and the entries, written back as one `"\xNN..."` line each,
// parse to the same entries (the escapes and the line structure agree).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/dictionary.h"

namespace {

using pollen::engine::Dictionary;
using pollen::engine::ParseDictionary;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "dictionary_fuzzer: %s\n", what);
  std::abort();
}

// Every byte as \xNN: the one spelling that needs no knowledge of which bytes are special.
std::string Escaped(const Dictionary& dict) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (const std::string& entry : dict.entries) {
    text += "kw=\"";
    for (unsigned char c : entry) {
      text += "\\x";
      text += kHex[c >> 4];
      text += kHex[c & 15];
    }
    text += "\"\n";
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  pollen::Result<Dictionary> dict = ParseDictionary(text, "fuzz.dict");
  if (!dict.ok()) {
    if (dict.status().message().rfind("fuzz.dict:", 0) != 0) Fail("error does not name the origin");
    return 0;
  }
  for (const std::string& entry : dict->entries) {
    if (entry.empty() || entry.size() > Dictionary::kMaxEntrySize) {
      Fail("parsed an entry outside 1..kMaxEntrySize bytes");
    }
  }
  pollen::Result<Dictionary> again = ParseDictionary(Escaped(*dict), "escaped");
  if (!again.ok()) Fail("the escaped entries do not parse");
  if (again->entries != dict->entries) Fail("the escaped entries parse differently");
  return 0;
}
