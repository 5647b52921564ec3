// Helpers for the transfer tests: records in memory, a source and sinks over them, a
// temporary directory, and a pump that runs a sender and a receiver against each other.
#ifndef POLLEN_TRANSFER_TRANSFER_TEST_UTIL_H_
#define POLLEN_TRANSFER_TRANSFER_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "transfer/stream_receiver.h"
#include "transfer/stream_sender.h"

namespace pollen::transfer::testing {

using Record = std::pair<std::string, std::string>;  // name, data

// `count` records named "rec-000000", "rec-000001", ... (ascending) with data of sizes in
// [min_size, max_size], pseudo-random bytes from `seed`.
inline std::vector<Record> MakeRecords(size_t count, size_t min_size, size_t max_size,
                                       uint32_t seed = 1) {
  std::mt19937 rng(seed);
  std::vector<Record> records;
  for (size_t i = 0; i < count; i++) {
    char name[32];
    std::snprintf(name, sizeof(name), "rec-%06zu", i);
    const size_t size = min_size + (max_size > min_size ? rng() % (max_size - min_size + 1) : 0);
    std::string data(size, '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    records.emplace_back(name, std::move(data));
  }
  return records;
}

// Yields `records` in order, optionally only those after `resume_after`.
class VectorSource : public RecordSource {
 public:
  explicit VectorSource(std::vector<Record> records, const std::string& resume_after = "")
      : records_(std::move(records)) {
    while (next_ < records_.size() && !resume_after.empty() &&
           records_[next_].first <= resume_after) {
      next_++;
    }
  }
  Result<bool> Next(std::string* name, std::string* data) override {
    if (next_ == records_.size()) return false;
    *name = records_[next_].first;
    *data = records_[next_].second;
    next_++;
    return true;
  }

 private:
  std::vector<Record> records_;
  size_t next_ = 0;
};

// Keeps every record committed, in order; fails every commit after `fail_after` commits.
class MemorySink : public RecordSink {
 public:
  explicit MemorySink(size_t fail_after = SIZE_MAX) : fail_after_(fail_after) {}
  Status Commit(std::string_view name, std::string_view data) override {
    if (records.size() >= fail_after_) return Status::Error("disk full (test)");
    records.emplace_back(std::string(name), std::string(data));
    return Status::Ok();
  }
  std::vector<Record> records;

 private:
  size_t fail_after_;
};

// A unique directory under $TMPDIR (or /tmp), removed with its contents at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/pollen-transfer-test-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What Pump saw.
struct PumpResult {
  Status status;          // the first error of either end, or ok
  size_t max_queued = 0;  // chunks sent and not yet consumed, at most
};

// Runs `sender` against `receiver` through a queue of chunks until the receiver is done, an
// error, or `max_chunks` chunks were delivered. Checks on the way that the queue never
// holds more chunks than the credit granted (the window).
inline PumpResult Pump(StreamSender& sender, StreamReceiver& receiver, uint32_t window,
                       uint64_t max_chunks = UINT64_MAX) {
  PumpResult result;
  std::deque<StreamChunk> queue;
  sender.AddCredit(receiver.InitialCredit());
  for (uint64_t delivered = 0; !receiver.done() && delivered < max_chunks;) {
    for (;;) {
      Result<std::optional<StreamChunk>> chunk = sender.NextChunk();
      if (!chunk.ok()) {
        result.status = chunk.status();
        return result;
      }
      if (!chunk->has_value()) break;
      queue.push_back(std::move(**chunk));
      result.max_queued = std::max(result.max_queued, queue.size());
      EXPECT_LE(queue.size(), window) << "the sender exceeded its credit";
    }
    if (queue.empty()) {
      result.status = Status::Error("pump: nothing to deliver (stalled)");
      return result;
    }
    if (Status s = receiver.OnChunk(queue.front()); !s.ok()) {
      result.status = s;
      return result;
    }
    queue.pop_front();
    delivered++;
    sender.AddCredit(receiver.TakeCredit());
  }
  return result;
}

}  // namespace pollen::transfer::testing

#endif  // POLLEN_TRANSFER_TRANSFER_TEST_UTIL_H_
