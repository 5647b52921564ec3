// storage_bench: the speed of the corpus store and of a corpus merge (bench/README.md).
//
//   storage_bench [N] [WORKDIR] [TEXTDIR]
//     N entries (default 1,000,000); WORKDIR: a fresh temp dir; TEXTDIR: /usr/include
//
// 1. inserts: N text-like entries (lines of 20-200 bytes from a 300-word vocabulary, 10-40
//    features each, skewed towards small feature ids) put one by one (PutEntry, as a fuzzer
//    adds them) into a fresh store; then Compact, and bytes on disk against raw bytes.
// 2. merge: that store (reopened read-only, same build id: nothing is executed) into an
//    empty destination, timed per phase; then CompactStore on the destination.
// 3. text: bytes on disk of a corpus of real text: up to N entries cut from the files of
//    TEXTDIR (20-400 bytes each, ending at a line end, as a text parser's fuzzing corpus
//    holds fragments of real documents), with the same feature lists as in 1.
// A measurement, not a test: exits non-zero only when something fails.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/sha1.h"
#include "bench/bench_util.h"
#include "storage/corpus_merger.h"
#include "storage/corpus_store.h"

namespace pollen::storage {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

using bench::CpuModel;

int Fail(const Status& s) {
  std::fprintf(stderr, "storage_bench: ERROR: %s\n", s.message().c_str());
  return 1;
}

// Deterministic text-like entries with skewed features.
class Generator {
 public:
  Generator() : rng_(42) {
    const char* letters = "etaoinshrdlucmfwypvbgkjqxz";
    for (int i = 0; i < 300; ++i) {
      std::string word;
      const int len = 2 + static_cast<int>(rng_() % 8);
      for (int j = 0; j < len; ++j)
        word.push_back(letters[std::min<uint32_t>(rng_() % 26, rng_() % 26)]);
      words_.push_back(word);
    }
  }
  std::string Line() {
    const size_t target = 20 + rng_() % 181;
    std::string line;
    while (line.size() < target) {
      // Zipf-like word choice: low indices far more often.
      const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
      line += words_[static_cast<size_t>(std::pow(u, 2.5) * words_.size())];
      line.push_back(line.size() % 7 == 0 ? ',' : ' ');
    }
    line.resize(target);
    return line;
  }
  std::vector<uint32_t> Features() {
    std::set<uint32_t> f;
    const int k = 10 + static_cast<int>(rng_() % 31);
    while (static_cast<int>(f.size()) < k) {
      const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
      f.insert(static_cast<uint32_t>(std::pow(u, 4.0) * 200000.0) * 64u + 7u);
    }
    return {f.begin(), f.end()};
  }
  // The metadata of the i-th entry, of `size` bytes: Features() and made-up times.
  EntryMeta Meta(size_t size, uint64_t i) {
    EntryMeta meta;
    meta.size = size;
    meta.features = Features();
    meta.exec_time_us = 10 + i % 90;
    meta.origin = "bench";
    meta.first_seen_unix_ms = 1700000000000 + static_cast<int64_t>(i);
    return meta;
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> words_;
};

// Entries cut from real text: every regular file under `dir` (sorted, so every run reads
// the same ones), split into pieces of 20-400 bytes that end at a line end.
class TextCutter {
 public:
  explicit TextCutter(const std::string& dir) : rng_(7) {
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      std::error_code file_ec;
      if (it->is_regular_file(file_ec) && it->file_size(file_ec) < (1u << 20)) {
        files_.push_back(it->path().string());
      }
    }
    std::sort(files_.begin(), files_.end());
  }
  size_t files() const { return files_.size(); }
  // The next piece; false when every file is used up.
  bool Next(std::string* piece) {
    while (true) {
      if (pos_ >= text_.size()) {
        if (next_file_ >= files_.size()) return false;
        std::ifstream in(files_[next_file_++], std::ios::binary);
        text_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        pos_ = 0;
      }
      const size_t want = 20 + rng_() % 381;
      size_t end = std::min(text_.size(), pos_ + want);
      const size_t newline = text_.find('\n', end);
      end = newline == std::string::npos ? text_.size() : std::min(text_.size(), newline + 1);
      *piece = text_.substr(pos_, end - pos_);
      pos_ = end;
      if (piece->size() >= 20) return true;
    }
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> files_;
  size_t next_file_ = 0;
  std::string text_;
  size_t pos_ = 0;
};

// Bytes in every file of the store's directory (SST files, WAL, manifest, OPTIONS).
uint64_t DirectoryBytes(const std::string& path) {
  uint64_t total = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) total += it->file_size(size_ec);
  }
  return total;
}

// Part 3: a store of real text pieces with feature lists; bytes on disk against raw bytes.
Status MeasureText(uint64_t n, const std::string& text_dir, const std::string& path) {
  TextCutter cutter(text_dir);
  if (cutter.files() == 0) {
    std::printf("text:    skipped: no files under %s\n", text_dir.c_str());
    return Status::Ok();
  }
  Result<std::unique_ptr<CorpusStore>> store =
      CorpusStore::Open(path, CampaignId{"bench_text", "bench-build"}, {});
  if (!store.ok()) return store.status();
  Generator gen;
  std::string piece;
  uint64_t put = 0;
  while (put < n && cutter.Next(&piece)) {
    const EntryMeta meta = gen.Meta(piece.size(), put);
    const auto* data = reinterpret_cast<const uint8_t*>(piece.data());
    const std::string hash = base::Sha1Hex(data, piece.size());
    if ((*store)->HasEntry(hash)) continue;  // headers repeat: keep each piece once
    if (Status s = (*store)->PutEntry(hash, data, piece.size(), meta); !s.ok()) return s;
    ++put;
  }
  if (Status s = (*store)->Compact(); !s.ok()) return s;
  Result<CorpusStore::Stats> stats = (*store)->GetStats();
  if (!stats.ok()) return stats.status();
  const double raw = static_cast<double>(std::max<uint64_t>(1, stats->raw_bytes));
  std::printf(
      "text:    %llu entries cut from %zu files of %s (mean %.0f bytes), raw %.1f MB; on "
      "disk: inputs %.1f MB (ratio %.3f), everything in SST files %.1f MB (ratio %.3f), "
      "every file of the store %.1f MB (ratio %.3f)\n",
      static_cast<unsigned long long>(stats->entries), cutter.files(), text_dir.c_str(),
      raw / static_cast<double>(std::max<uint64_t>(1, stats->entries)), raw / 1e6,
      stats->input_disk_bytes / 1e6, stats->input_disk_bytes / raw, stats->disk_bytes / 1e6,
      stats->disk_bytes / raw, DirectoryBytes(path) / 1e6, DirectoryBytes(path) / raw);
  return Status::Ok();
}

int Main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::string root;
  if (argc > 2) {
    root = argv[2];
  } else {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "storage_bench_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return Fail(Status::Error("mkdtemp failed"));
    root = pattern;
  }
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  std::printf(
      "storage_bench  date: %s\nmachine: %ld CPUs, %s\ncommand: %s\nN: %llu  workdir: %s\n\n", date,
      sysconf(_SC_NPROCESSORS_ONLN), CpuModel().c_str(), command.c_str(),
      static_cast<unsigned long long>(n), root.c_str());

  const CampaignId campaign{"bench_target", "bench-build"};
  const std::string src_path = root + "/source";
  const std::string dst_path = root + "/merged";
  {
    Result<std::unique_ptr<CorpusStore>> src = CorpusStore::Open(src_path, campaign, {});
    if (!src.ok()) return Fail(src.status());
    Generator gen;
    double gen_seconds = 0, put_seconds = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const Clock::time_point g = Clock::now();
      const std::string line = gen.Line();
      const EntryMeta meta = gen.Meta(line.size(), i);
      const auto* data = reinterpret_cast<const uint8_t*>(line.data());
      const std::string hash = base::Sha1Hex(data, line.size());
      const Clock::time_point p = Clock::now();
      gen_seconds += std::chrono::duration<double>(p - g).count();
      if (Status s = (*src)->PutEntry(hash, data, line.size(), meta); !s.ok()) return Fail(s);
      put_seconds += Seconds(p);
    }
    std::printf("insert:  %llu PutEntry in %.2f s: %.0f inserts/s (generation, excluded: %.2f s)\n",
                static_cast<unsigned long long>(n), put_seconds, n / put_seconds, gen_seconds);
    const Clock::time_point c = Clock::now();
    if (Status s = (*src)->Compact(); !s.ok()) return Fail(s);
    const double compact_seconds = Seconds(c);
    Result<CorpusStore::Stats> stats = (*src)->GetStats();
    if (!stats.ok()) return Fail(stats.status());
    std::printf(
        "source:  %llu entries, raw %.1f MB; on disk: inputs %.1f MB (ratio %.3f), "
        "everything with metadata %.1f MB (ratio %.3f); compacted in %.2f s\n",
        static_cast<unsigned long long>(stats->entries), stats->raw_bytes / 1e6,
        stats->input_disk_bytes / 1e6,
        static_cast<double>(stats->input_disk_bytes) / static_cast<double>(stats->raw_bytes),
        stats->disk_bytes / 1e6,
        static_cast<double>(stats->disk_bytes) / static_cast<double>(stats->raw_bytes),
        compact_seconds);
  }

  StoreOptions read_only;
  read_only.read_only = true;
  Result<std::unique_ptr<CorpusStore>> src = CorpusStore::Open(src_path, campaign, read_only);
  if (!src.ok()) return Fail(src.status());
  Result<std::unique_ptr<CorpusStore>> dst = CorpusStore::Open(dst_path, campaign, {});
  if (!dst.ok()) return Fail(dst.status());
  std::map<MergePhase, double> phase_end;
  const Clock::time_point m = Clock::now();
  MergeOptions options;
  options.progress = [&](uint64_t, uint64_t, MergePhase phase) { phase_end[phase] = Seconds(m); };
  CorpusMerger merger(dst->get(), nullptr, options);
  merger.AddStore(src->get());
  Result<MergeReport> report = merger.Run();
  if (!report.ok()) return Fail(report.status());
  const double merge_seconds = Seconds(m);
  std::printf(
      "merge:   %llu entries in %.2f s: %.0f entries/s (phases end at: gather %.2f s, "
      "cover %.2f s, write %.2f s)\n",
      static_cast<unsigned long long>(report->inputs_seen), merge_seconds,
      report->inputs_seen / merge_seconds, phase_end[MergePhase::kGather],
      phase_end[MergePhase::kCover], phase_end[MergePhase::kWrite]);
  std::printf("         %llu features; %llu entries selected (%.1f MB), %llu executed\n",
              static_cast<unsigned long long>(report->features),
              static_cast<unsigned long long>(report->entries_selected),
              report->bytes_selected / 1e6, static_cast<unsigned long long>(report->executed));
  const Clock::time_point c = Clock::now();
  Result<CompactReport> compact = CompactStore(**dst);
  if (!compact.ok()) return Fail(compact.status());
  const double raw = static_cast<double>(std::max<uint64_t>(1, compact->after.raw_bytes));
  std::printf(
      "compact: merged store %llu entries, raw %.1f MB; on disk %.1f MB before -> %.1f "
      "MB after (inputs %.1f MB, ratio %.3f; with metadata ratio %.3f) in %.2f s\n",
      static_cast<unsigned long long>(compact->after.entries), compact->after.raw_bytes / 1e6,
      compact->before.disk_bytes / 1e6, compact->after.disk_bytes / 1e6,
      compact->after.input_disk_bytes / 1e6, compact->after.input_disk_bytes / raw,
      compact->after.disk_bytes / raw, Seconds(c));
  src->reset();
  dst->reset();
  const std::string text_dir = argc > 3 ? argv[3] : "/usr/include";
  if (Status s = MeasureText(n, text_dir, root + "/text"); !s.ok()) return Fail(s);
  if (argc <= 2) std::filesystem::remove_all(root);
  return 0;
}

}  // namespace
}  // namespace pollen::storage

int main(int argc, char** argv) { return pollen::storage::Main(argc, argv); }
