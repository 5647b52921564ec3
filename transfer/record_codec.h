// The NamedByteSequence record format (docs/transfer.md, "Records"): a stream is the
// concatenation of records
//
//   u32 name_length | u32 size | name (name_length bytes) | data (size bytes)
//
// with both u32s little-endian. Nothing else: no stream header, no padding, no checksum (the
// transport authenticates: CURVE, or the controller's connection). A stream is cut into
// chunks at arbitrary byte offsets, so the parser takes bytes in pieces of any size.
#ifndef POLLEN_TRANSFER_RECORD_CODEC_H_
#define POLLEN_TRANSFER_RECORD_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "transfer/record_name.h"

namespace pollen::transfer {

inline constexpr size_t kRecordHeaderBytes = 8;

// What a receiver accepts. Both ends should use the same values: a sender checks its
// records against them too, so that a record the receiver would refuse is an error at its
// source, naming the record.
struct StreamLimits {
  size_t max_name_bytes = kMaxRecordNameBytes;
  uint64_t max_record_bytes = 64 << 20;  // data bytes of one record (at most 2^32 - 1)
  size_t max_chunk_bytes = 4 << 20;      // data bytes of one chunk (the receiver's bound)
};

// Appends the record header (8 bytes) and `name` to `out`: the record's bytes up to its
// data, for a record of `data_size` data bytes. Precondition (CHECKed): both sizes fit a u32.
void AppendRecordHeader(std::string* out, std::string_view name, uint64_t data_size);

// Appends the whole record (name, data) to `out`. Same precondition.
void AppendRecord(std::string* out, std::string_view name, std::string_view data);

// Splits a record stream fed in pieces back into records.
//
// Checks, in this order, before buffering anything that follows: the name length against
// limits.max_name_bytes and the data size against limits.max_record_bytes (as soon as the
// 8 header bytes are in), then the name (ValidateRecordName, as soon as it is in). So a
// hostile stream costs at most one valid record of memory. A record that lies whole inside
// one Feed is passed on without a copy; one that spans Feeds is buffered until complete.
//
// Errors name the record (1-based number in the stream, its offset, its name when known)
// and what is wrong. After the first error (its own or the callback's) the parser is
// stopped: every later Feed or Finish returns that error and calls nothing.
// Not thread-safe.
class RecordParser {
 public:
  // Receives one record; the views are valid during the call only. An error stops the
  // parser and is returned by Feed.
  using RecordCallback = std::function<Status(std::string_view name, std::string_view data)>;

  explicit RecordParser(const StreamLimits& limits = {});

  // Consumes all of `bytes`, calling `on_record` for each record completed, in order.
  Status Feed(std::string_view bytes, const RecordCallback& on_record);

  // The stream ended: an error when it ended inside a record (saying how much of it came).
  Status Finish();

  uint64_t records() const { return records_; }              // passed to the callback, ok
  uint64_t bytes_fed() const { return offset_; }             // stream bytes consumed
  size_t buffered_bytes() const { return pending_.size(); }  // of the incomplete record
  size_t max_buffered_bytes() const { return max_buffered_; }

 private:
  enum class Stage { kHeader, kName, kData };

  // Bytes of the current record that must be buffered before the next check.
  size_t StageEnd() const;
  // Checks the header's lengths; sets name_length_ and size_.
  Status ReadHeader(const char* header);
  std::string Where() const;  // "record N at offset X", for messages
  Status Stop(Status error);
  Status Deliver(std::string_view name, std::string_view data, const RecordCallback& on_record);

  StreamLimits limits_;
  Stage stage_ = Stage::kHeader;
  std::string pending_;  // the incomplete record's bytes so far
  uint32_t name_length_ = 0;
  uint32_t size_ = 0;
  uint64_t record_offset_ = 0;  // stream offset of the current record's first byte
  uint64_t offset_ = 0;
  uint64_t records_ = 0;
  size_t max_buffered_ = 0;
  Status error_;
};

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_RECORD_CODEC_H_
