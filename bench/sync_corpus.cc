#include "bench/sync_corpus.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "bench/bench_util.h"

namespace pollen::bench {
namespace {

constexpr size_t kRawBufferBytes = 256 << 10;

// All of file `path` into *out (read() in 256 KiB pieces, as a copy tool would).
bool ReadFile(const std::string& path, std::string* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buffer[64 << 10];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      close(fd);
      return false;
    }
    if (n == 0) break;
    out->append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

}  // namespace

// The record stream over raw TCP.
bool RawCopy(const Corpus& corpus, RawKind kind, const std::string& to) {
  auto [out, in] = TcpPair();
  if (out < 0 || in < 0) {
    std::perror("corpus_sync_bench: raw connection");
    return false;
  }
  const bool files = kind != RawKind::kMemory;
  const std::string& to_dir = to;
  int log = -1;
  if (kind == RawKind::kLog) {
    log = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) {
      std::perror("corpus_sync_bench: raw copy to a log");
      return false;
    }
  }
  std::thread writer([&, out = out] {
    std::string record, data;
    for (size_t i = 0; i < corpus.count(); i++) {
      if (files) {
        if (!ReadFile(corpus.dir() + "/" + Corpus::Name(i), &data)) break;
      } else {
        corpus.Data(i, &data);
      }
      record.clear();
      transfer::AppendRecordHeader(&record, Corpus::Name(i), data.size());
      if (!WriteAll(out, record.data(), record.size()) ||
          !WriteAll(out, data.data(), data.size())) {
        break;
      }
    }
    close(out);
  });
  std::vector<char> buffer(kRawBufferBytes);
  uint64_t received = 0;
  // For files: the record being read (header, then name and data) and its file.
  std::string pending;
  for (;;) {
    const ssize_t n = read(in, buffer.data(), buffer.size());
    if (n <= 0) break;
    received += static_cast<uint64_t>(n);
    if (log >= 0 && !WriteAll(log, buffer.data(), static_cast<size_t>(n))) {
      std::perror("corpus_sync_bench: raw copy to a log");
      break;
    }
    if (kind != RawKind::kFiles) continue;
    pending.append(buffer.data(), static_cast<size_t>(n));
    size_t at = 0;
    while (pending.size() - at >= transfer::kRecordHeaderBytes) {
      uint32_t name_length, size;
      std::memcpy(&name_length, pending.data() + at, 4);
      std::memcpy(&size, pending.data() + at + 4, 4);
      const size_t whole = transfer::kRecordHeaderBytes + name_length + size;
      if (pending.size() - at < whole) break;
      const std::string name = pending.substr(at + transfer::kRecordHeaderBytes, name_length);
      const int fd =
          open((to_dir + "/" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0 ||
          !WriteAll(fd, pending.data() + at + transfer::kRecordHeaderBytes + name_length, size)) {
        std::perror("corpus_sync_bench: raw copy to a file");
      }
      if (fd >= 0) close(fd);
      at += whole;
    }
    pending.erase(0, at);
  }
  writer.join();
  close(in);
  if (log >= 0) close(log);
  if (received != corpus.stream_bytes()) {
    std::fprintf(stderr, "corpus_sync_bench: the raw copy received %llu of %llu bytes\n",
                 static_cast<unsigned long long>(received),
                 static_cast<unsigned long long>(corpus.stream_bytes()));
    return false;
  }
  return true;
}

}  // namespace pollen::bench
