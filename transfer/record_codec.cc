#include "transfer/record_codec.h"

#include <algorithm>
#include <limits>

namespace pollen::transfer {
namespace {

// A buffer kept after a record larger than this is freed: one big record does not pin its
// memory for the rest of the stream.
constexpr size_t kKeptBufferBytes = 1 << 20;

void PutU32(std::string* out, uint32_t v) {
  const char bytes[4] = {static_cast<char>(v), static_cast<char>(v >> 8),
                         static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
  out->append(bytes, 4);
}

uint32_t GetU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
}

}  // namespace

void AppendRecordHeader(std::string* out, std::string_view name, uint64_t data_size) {
  POLLEN_CHECK(name.size() <= std::numeric_limits<uint32_t>::max());
  POLLEN_CHECK(data_size <= std::numeric_limits<uint32_t>::max());
  PutU32(out, static_cast<uint32_t>(name.size()));
  PutU32(out, static_cast<uint32_t>(data_size));
  out->append(name);
}

void AppendRecord(std::string* out, std::string_view name, std::string_view data) {
  out->reserve(out->size() + kRecordHeaderBytes + name.size() + data.size());
  AppendRecordHeader(out, name, data.size());
  out->append(data);
}

RecordParser::RecordParser(const StreamLimits& limits) : limits_(limits) {}

size_t RecordParser::StageEnd() const {
  switch (stage_) {
    case Stage::kHeader:
      return kRecordHeaderBytes;
    case Stage::kName:
      return kRecordHeaderBytes + name_length_;
    case Stage::kData:
      return kRecordHeaderBytes + name_length_ + size_;
  }
  POLLEN_CHECK(false);
  return 0;
}

std::string RecordParser::Where() const {
  return "record " + std::to_string(records_ + 1) + " at stream offset " +
         std::to_string(record_offset_);
}

Status RecordParser::ReadHeader(const char* header) {
  name_length_ = GetU32(header);
  size_ = GetU32(header + 4);
  if (name_length_ > limits_.max_name_bytes) {
    return Status::Error(Where() + ": name length " + std::to_string(name_length_) +
                         " exceeds the limit of " + std::to_string(limits_.max_name_bytes) +
                         " bytes");
  }
  if (size_ > limits_.max_record_bytes) {
    return Status::Error(Where() + ": data size " + std::to_string(size_) +
                         " exceeds the limit of " + std::to_string(limits_.max_record_bytes) +
                         " bytes");
  }
  return Status::Ok();
}

Status RecordParser::Stop(Status error) {
  error_ = std::move(error);
  return error_;
}

Status RecordParser::Deliver(std::string_view name, std::string_view data,
                             const RecordCallback& on_record) {
  if (Status s = on_record(name, data); !s.ok()) return Stop(std::move(s));
  records_++;
  record_offset_ += kRecordHeaderBytes + name.size() + data.size();
  return Status::Ok();
}

Status RecordParser::Feed(std::string_view bytes, const RecordCallback& on_record) {
  if (!error_.ok()) return error_;
  while (!bytes.empty()) {
    if (stage_ == Stage::kHeader && pending_.empty()) {
      // The common case: records that lie whole in `bytes` go to the callback uncopied.
      while (bytes.size() >= kRecordHeaderBytes) {
        if (Status s = ReadHeader(bytes.data()); !s.ok()) return Stop(std::move(s));
        const size_t total = kRecordHeaderBytes + name_length_ + size_;
        if (bytes.size() < total) break;
        const std::string_view name = bytes.substr(kRecordHeaderBytes, name_length_);
        if (Status s = ValidateRecordName(name, limits_.max_name_bytes); !s.ok()) {
          return Stop(Status::Error(Where() + ": " + s.message()));
        }
        offset_ += total;
        if (Status s =
                Deliver(name, bytes.substr(kRecordHeaderBytes + name_length_, size_), on_record);
            !s.ok()) {
          return s;
        }
        bytes.remove_prefix(total);
      }
      if (bytes.empty()) break;
    }
    // A record that continues in a later Feed: buffer it one stage at a time, so that each
    // check runs before what it guards is buffered.
    const size_t take = std::min(StageEnd() - pending_.size(), bytes.size());
    pending_.append(bytes.data(), take);
    bytes.remove_prefix(take);
    offset_ += take;
    max_buffered_ = std::max(max_buffered_, pending_.size());
    while (pending_.size() == StageEnd()) {
      switch (stage_) {
        case Stage::kHeader:
          if (Status s = ReadHeader(pending_.data()); !s.ok()) return Stop(std::move(s));
          pending_.reserve(kRecordHeaderBytes + name_length_ + size_);
          stage_ = Stage::kName;
          break;
        case Stage::kName:
          if (Status s = ValidateRecordName(std::string_view(pending_).substr(kRecordHeaderBytes),
                                            limits_.max_name_bytes);
              !s.ok()) {
            return Stop(Status::Error(Where() + ": " + s.message()));
          }
          stage_ = Stage::kData;
          break;
        case Stage::kData: {
          const std::string_view record(pending_);
          if (Status s = Deliver(record.substr(kRecordHeaderBytes, name_length_),
                                 record.substr(kRecordHeaderBytes + name_length_), on_record);
              !s.ok()) {
            return s;
          }
          if (pending_.capacity() > kKeptBufferBytes) {
            std::string().swap(pending_);
          } else {
            pending_.clear();
          }
          stage_ = Stage::kHeader;
          break;
        }
      }
    }
  }
  return Status::Ok();
}

Status RecordParser::Finish() {
  if (!error_.ok()) return error_;
  if (stage_ == Stage::kHeader && pending_.empty()) return Status::Ok();
  std::string what;
  switch (stage_) {
    case Stage::kHeader:
      what = std::to_string(pending_.size()) + " of its " + std::to_string(kRecordHeaderBytes) +
             " header bytes";
      break;
    case Stage::kName:
      what = std::to_string(pending_.size() - kRecordHeaderBytes) + " of its " +
             std::to_string(name_length_) + " name bytes";
      break;
    case Stage::kData:
      what = "name " +
             PrintableName(std::string_view(pending_).substr(kRecordHeaderBytes, name_length_)) +
             ", " + std::to_string(pending_.size() - kRecordHeaderBytes - name_length_) +
             " of its " + std::to_string(size_) + " data bytes";
      break;
  }
  return Stop(
      Status::Error("truncated stream: it ends inside " + Where() + " (" + what + " received)"));
}

}  // namespace pollen::transfer
