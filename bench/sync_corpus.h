// The corpus of corpus_sync_bench (bench/corpus_sync_bench.cc) and the raw TCP copies its
// pushes and pulls are compared with.
#ifndef POLLEN_BENCH_SYNC_CORPUS_H_
#define POLLEN_BENCH_SYNC_CORPUS_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "transfer/record_codec.h"

namespace pollen::bench {

// The corpus: entry i is bytes of a random pool stamped with i (so every entry differs),
// written as file "seed-%08d" of the source directory.
class Corpus {
 public:
  Corpus(size_t entries, size_t entry_kb, std::string dir) : dir_(std::move(dir)) {
    const size_t mean = entry_kb * 1000, spread = mean / 10;
    std::mt19937_64 rng(12345);
    pool_.resize(mean + spread + (1 << 20));
    for (auto& c : pool_) c = static_cast<char>(rng());
    for (size_t i = 0; i < entries; i++) {
      sizes_.push_back(
          std::max<size_t>(16, mean - spread + (spread ? rng() % (2 * spread + 1) : 0)));
      offsets_.push_back(rng() % (pool_.size() - sizes_.back() + 1));
      data_bytes_ += sizes_.back();
      stream_bytes_ += transfer::kRecordHeaderBytes + Name(i).size() + sizes_.back();
    }
  }

  static std::string Name(size_t i) {
    char name[32];
    std::snprintf(name, sizeof(name), "seed-%08zu", i);
    return name;
  }
  size_t count() const { return sizes_.size(); }
  // Entry i's bytes into *out.
  void Data(size_t i, std::string* out) const {
    out->assign(pool_.data() + offsets_[i], sizes_[i]);
    const std::string stamp = std::to_string(i) + ":";
    out->replace(0, stamp.size(), stamp);
  }
  bool Write() const {
    std::filesystem::create_directories(dir_);
    std::string data;
    for (size_t i = 0; i < count(); i++) {
      Data(i, &data);
      std::ofstream out(dir_ + "/" + Name(i), std::ios::binary);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      if (!out) return false;
    }
    return true;
  }
  const std::string& dir() const { return dir_; }
  uint64_t data_bytes() const { return data_bytes_; }
  uint64_t stream_bytes() const { return stream_bytes_; }

 private:
  std::string dir_;
  std::string pool_;
  std::vector<size_t> sizes_;
  std::vector<size_t> offsets_;
  uint64_t data_bytes_ = 0;
  uint64_t stream_bytes_ = 0;
};

enum class RawKind {
  kMemory,  // memory to memory
  kFiles,   // the corpus files to one file per record in `to`, a directory
  kLog,     // the corpus files to one file `to`, appended to
};

// The corpus's record stream over raw TCP on loopback, from memory or from its files, to
// nothing, to one file per record in directory `to`, or to the file `to` (kLog); false (said
// on stderr) when something failed or bytes were missing.
bool RawCopy(const Corpus& corpus, RawKind kind, const std::string& to);

}  // namespace pollen::bench

#endif  // POLLEN_BENCH_SYNC_CORPUS_H_
