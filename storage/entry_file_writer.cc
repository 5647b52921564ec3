#include "storage/entry_file_writer.h"

#include <utility>

#include "rocksdb/sst_file_writer.h"
#include "storage/rocks_util.h"

namespace pollen::storage {

Result<std::unique_ptr<EntryFileWriter>> EntryFileWriter::Open(const std::string& store_path,
                                                               Side inputs, Side meta) {
  auto inputs_writer = std::make_unique<rocksdb::SstFileWriter>(
      rocksdb::EnvOptions(), inputs.options, inputs.column_family);
  auto meta_writer = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), meta.options,
                                                              meta.column_family);
  rocksdb::Status s = inputs_writer->Open(inputs.path);
  if (s.ok()) s = meta_writer->Open(meta.path);
  if (!s.ok()) return FromRocks(s, store_path, "creating entry file " + inputs.path);
  return std::unique_ptr<EntryFileWriter>(new EntryFileWriter(store_path, std::move(inputs_writer),
                                                              std::move(meta_writer), inputs.path));
}

EntryFileWriter::EntryFileWriter(std::string store_path,
                                 std::unique_ptr<rocksdb::SstFileWriter> inputs,
                                 std::unique_ptr<rocksdb::SstFileWriter> meta,
                                 std::string inputs_path)
    : store_path_(std::move(store_path)),
      inputs_path_(std::move(inputs_path)),
      inputs_(std::move(inputs)),
      meta_(std::move(meta)),
      thread_([this] { Run(); }) {}

EntryFileWriter::~EntryFileWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status EntryFileWriter::Put(std::string_view key, std::string_view data, std::string_view meta) {
  const size_t size = key.size() + data.size() + meta.size();
  std::unique_lock<std::mutex> lock(mutex_);
  // One entry larger than the limit still goes in, alone.
  changed_.wait(lock, [&] {
    return !error_.ok() || queue_.empty() || queued_bytes_ + size <= kMaxQueuedBytes;
  });
  if (!error_.ok()) return error_;
  queue_.push_back({std::string(key), std::string(data), std::string(meta)});
  queued_bytes_ += size;
  lock.unlock();
  changed_.notify_all();
  return Status::Ok();
}

Status EntryFileWriter::Finish() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !error_.ok() || (queue_.empty() && !busy_); });
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (!error_.ok()) return error_;  // the thread is gone: no lock needed
  rocksdb::Status s = inputs_->Finish();
  if (s.ok()) s = meta_->Finish();
  if (!s.ok()) return FromRocks(s, store_path_, "completing entry file " + inputs_path_);
  return Status::Ok();
}

void EntryFileWriter::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    // Finish() stops an empty queue; a dropped file's entries are not worth writing.
    if (stop_ || !error_.ok()) return;
    Entry entry = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= entry.key.size() + entry.data.size() + entry.meta.size();
    busy_ = true;
    lock.unlock();
    changed_.notify_all();  // room in the queue
    Status s = Write(entry);
    lock.lock();
    busy_ = false;
    if (!s.ok()) error_ = s;
    changed_.notify_all();
  }
}

Status EntryFileWriter::Write(const Entry& entry) {
  rocksdb::Status s = inputs_->Put(ToSlice(entry.key), ToSlice(entry.data));
  if (s.ok()) s = meta_->Put(ToSlice(entry.key), ToSlice(entry.meta));
  if (!s.ok()) return FromRocks(s, store_path_, "writing entry file " + inputs_path_);
  return Status::Ok();
}

}  // namespace pollen::storage
