// Go's fuzzing corpus file format ("go test fuzz v1"), for one []byte or string argument.
//
// A Go corpus file (testdata/fuzz/FuzzXxx/<name>, or $GOCACHE/fuzz/...) is the line
// "go test fuzz v1" followed by one line per argument of the fuzz target, each a Go
// conversion expression: `[]byte("\x00abc")`, `string("héllo")`, `int(5)`, ... Pollen
// targets take one byte string, so only files with exactly one []byte or string argument
// are accepted; any other type is an error that names it.
//
// What is accepted mirrors Go's own reader (internal/fuzz/encoding.go, which trims each
// line, skips blank lines, and unquotes with strconv.Unquote): interpreted "..." and raw
// `...` string literals with every Go escape (\a \b \f \n \r \t \v \\ \" \xHH, octal \NNN up
// to \377, \uHHHH and \UHHHHHHHH encoded as UTF-8 except surrogates and values above
// U+10FFFF), spaces and tabs between the tokens, and UTF-8 checking of the source text (Go's
// scanner rejects invalid UTF-8 and NUL bytes in a literal: a corrupted file is an error,
// never a silently different input). One leniency: \' is accepted inside "..." (Go only
// allows it in rune literals) and means a single quote.
#ifndef POLLEN_BASE_GO_CORPUS_H_
#define POLLEN_BASE_GO_CORPUS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pollen::base {

// The first line of every Go corpus file, without its newline.
inline constexpr std::string_view kGoCorpusHeader = "go test fuzz v1";

// The bytes of the single []byte or string argument in corpus file `text`. `name` (usually
// the file's path) only labels errors, which read "<name>:<line>: <what is wrong>": no
// header, not exactly one argument, an unsupported type, an unterminated literal, an invalid
// or out-of-range escape, invalid UTF-8, or text after the closing parenthesis.
// Thread-safe; never crashes on any input.
Result<std::vector<uint8_t>> ParseGoCorpusFile(std::string_view text, std::string_view name);

// One argument line of a corpus file: `type(value)`.
struct GoCorpusArgument {
  std::string type;            // "[]byte", "string", "int64", "bool", "float64", ...
  bool literal = false;        // the value was a string literal: its bytes are in `bytes`
  std::vector<uint8_t> bytes;  // the literal's bytes
  std::string token;  // otherwise the text between the parentheses ("-5", "true", "0x7ff8...")
};

// Every argument of a corpus file whose first line is `header` ("go test fuzz v1" for Go's,
// "pollen fuzz v1" for Pollen's typed fuzz tests), of any type, in order; blank lines are
// skipped. `math.Float64frombits(0x...)` and `math.Float32frombits(0x...)`, which Go writes
// for NaNs and infinities, are float64 and float32 arguments whose token is the hex bits.
// Errors read "<name>:<line>[:<column>]: <what is wrong>". Thread-safe; never crashes.
Result<std::vector<GoCorpusArgument>> ParseCorpusArguments(std::string_view text,
                                                           std::string_view name,
                                                           std::string_view header);

// A Go interpreted string literal of data[0, size), with its quotes: short escapes (\a \b
// \f \n \r \t \v \\ \"), printable ASCII as is, every other byte as \xHH.
std::string QuoteGoBytes(const uint8_t* data, size_t size);

// The corpus file Go's `go test` would accept for a target taking one []byte: the header,
// then `[]byte("...")` and a newline. The literal uses short escapes (\a \b \f \n \r \t \v \\
// \"), keeps printable ASCII as is, and writes every other byte as \xHH (lowercase), so the
// file is plain ASCII. data may be null when size == 0. Thread-safe.
std::string FormatGoCorpusFile(const uint8_t* data, size_t size);

// The file name for corpus file `text` (as made by FormatGoCorpusFile): the first 16 hex
// digits of the SHA-1 of the file's text. Go names its files by the first 16 hex digits of
// the SHA-256 of the same text; Pollen has no SHA-256, and Go never checks the names, so
// these files are equally valid in testdata/fuzz/FuzzXxx. Thread-safe.
std::string GoCorpusFileName(std::string_view text);

}  // namespace pollen::base

#endif  // POLLEN_BASE_GO_CORPUS_H_
