#include "cli/store_records.h"

#include <chrono>
#include <cstdio>
#include <fstream>

#include "base/clock.h"
#include "base/sha1.h"

namespace pollen::cli {
namespace {

bool IsSha1Hex(std::string_view name) {
  if (name.size() != 40) return false;
  for (char c : name) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

Status WriteCursorFile(const std::string& path, const std::string& name) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << name;
    out.close();
    if (!out) {
      std::remove(temp.c_str());
      return Status::Error("cannot write resume cursor " + temp);
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return Status::Error("cannot rename " + temp + " to " + path);
  }
  return Status::Ok();
}

StoreSink::StoreSink(storage::CorpusStore* store, std::string origin, std::string cursor_path)
    : store_(store), origin_(std::move(origin)), cursor_path_(std::move(cursor_path)) {}

StoreSink::~StoreSink() { (void)Flush(); }

Status StoreSink::Commit(std::string_view name, std::string_view data) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  // Corpus records are named by their SHA-1; anything else is keyed by its bytes' SHA-1.
  const std::string hash = IsSha1Hex(name) ? std::string(name) : base::Sha1Hex(bytes, data.size());
  if (store_->HasEntry(hash)) {
    present_++;
  } else {
    storage::EntryMeta meta;
    meta.size = data.size();
    meta.origin = origin_;
    meta.first_seen_unix_ms = base::UnixMs();
    if (Status s = store_->PutEntry(hash, bytes, data.size(), meta); !s.ok()) return s;
    added_++;
  }
  last_.assign(name);
  return Status::Ok();
}

Status StoreSink::Flush() {
  if (cursor_path_.empty() || last_ == written_) return Status::Ok();
  if (Status s = WriteCursorFile(cursor_path_, last_); !s.ok()) return s;
  written_ = last_;
  return Status::Ok();
}

Result<std::unique_ptr<StoreSource>> StoreSource::Open(const storage::CorpusStore* store,
                                                       const std::string& resume_after) {
  std::vector<std::string> hashes;
  Status s = store->ForEachEntry([&](std::string_view hash, const storage::EntryMeta&) {
    if (std::string_view(hash) > resume_after) hashes.emplace_back(hash);
    return true;
  });
  if (!s.ok()) return s;
  return std::unique_ptr<StoreSource>(new StoreSource(store, std::move(hashes)));
}

Result<bool> StoreSource::Next(std::string* name, std::string* data) {
  while (next_ < hashes_.size()) {
    const std::string& hash = hashes_[next_++];
    Result<std::vector<uint8_t>> input = store_->GetInput(hash);
    if (!input.ok()) {
      if (!store_->HasEntry(hash)) continue;  // deleted since the listing
      return Status::Error("cannot read entry " + hash + " of " + store_->path() + ": " +
                           input.status().message());
    }
    name->assign(hash);
    data->assign(input->begin(), input->end());
    return true;
  }
  return false;
}

}  // namespace pollen::cli
