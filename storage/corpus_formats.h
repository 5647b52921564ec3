// Importing and exporting corpora in the directory layouts of other fuzzers.
//
//   libFuzzer  one file per input, named by the 40 hex digits of its SHA-1.
//   AFL++      a queue directory of files named "id:NNNNNN,..." (plus a .state/ directory
//              and other bookkeeping that is skipped), inside a fuzzer output directory
//              "<out>/<fuzzer>/queue" (AFL++ ≥ 3 uses "<out>/default/queue").
//   Go         `go test fuzz v1` files for one []byte or string argument
//              (base/go_corpus.h), as in testdata/fuzz/FuzzXxx.
//
// Reading never recurses further than the layouts above, skips dotfiles (which is also
// where WriteCorpusFile keeps its temporary files), and treats every file it does not skip
// as an input: a Go file that does not parse is an error, never silently dropped. Only
// AFL++'s queue is read; its crashes/ and hangs/ hold failures, not coverage seeds.
#ifndef POLLEN_STORAGE_CORPUS_FORMATS_H_
#define POLLEN_STORAGE_CORPUS_FORMATS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace pollen::storage {

enum class CorpusFormat { kLibFuzzer, kAfl, kGo };

// "libfuzzer", "afl" or "go".
std::string_view CorpusFormatName(CorpusFormat format);

// The format named `name` (one of CorpusFormatName's names, or "afl++"); an error listing
// the valid names otherwise.
Result<CorpusFormat> ParseCorpusFormat(std::string_view name);

// Guesses the format of corpus directory `dir`:
//   kAfl  when it has a queue/ subdirectory, a subdirectory with a queue/ of its own (an
//         AFL++ -o directory), or a file whose name starts with "id:" and a digit;
//   kGo   when any regular non-dot file starts with "go test fuzz v1";
//   kLibFuzzer otherwise (including an empty directory).
// Errors name `dir`: absent, not a directory, unreadable. Reads the first bytes of files.
Result<CorpusFormat> DetectCorpusFormat(const std::string& dir);

// Receives one input: `name` is its file's path relative to the directory given to
// ReadCorpusDir. An error stops the read and is returned by it.
using CorpusSink = std::function<Status(std::string_view name, std::vector<uint8_t> data)>;

// Calls `sink` once per input of corpus directory `dir` in `format`, in name order:
//   kLibFuzzer  every regular file directly in `dir`;
//   kAfl        every file named "id:..." in the queue directory: `dir` itself, or
//               `dir`/queue, or else `dir`/*/queue for every fuzzer instance of an AFL++
//               -o directory (names then read "default/queue/id:...");
//   kGo         every regular file directly in `dir`, parsed by ParseGoCorpusFile.
// Dotfiles and subdirectories are skipped. Errors name the path: `dir` absent or not a
// directory, a file that cannot be read, a Go file that does not parse; or the sink's error.
// Symbolic links to regular files are followed. Thread-safe (no shared state).
Status ReadCorpusDir(const std::string& dir, CorpusFormat format, const CorpusSink& sink);

// The name under which WriteCorpusFile stores data[0, size) in `format`: the SHA-1 in hex
// (libFuzzer), "id:%06llu,src:pollen" of `sequence` (AFL++), or GoCorpusFileName of the
// formatted file (Go).
std::string CorpusFileName(CorpusFormat format, const uint8_t* data, size_t size,
                           uint64_t sequence);

// Writes input data[0, size) into directory `dir` (created with its parents if absent) as
// one file in `format`, named by CorpusFileName. For kAfl, `dir` is the queue directory
// and `sequence` the id, which the caller keeps unique; the other formats ignore it. The
// file appears atomically: it is written and fsynced under a temporary dot-name, then
// renamed (the directory itself is not fsynced). If a file with the final name exists it is
// left alone: for libFuzzer and Go the name is derived from the content, so re-exporting a
// corpus adds only what is new. data may be null when size == 0. Errors name the path.
// Thread-safe; concurrent writers of one name both succeed with the same content.
Status WriteCorpusFile(const std::string& dir, CorpusFormat format, const uint8_t* data,
                       size_t size, uint64_t sequence);

// One entry of a directory, as ListDirectory gives it.
struct DirEntry {
  std::string name;
  bool is_regular = false;    // after following symbolic links
  bool is_directory = false;  // likewise
};

// The entries of `dir` except dotfiles, in name order. Errors: `dir` is absent, not a
// directory, or cannot be listed; each names it.
Result<std::vector<DirEntry>> ListDirectory(const std::string& dir);

}  // namespace pollen::storage

#endif  // POLLEN_STORAGE_CORPUS_FORMATS_H_
