// The receiving end of a NamedByteSequence stream: chunks in, records committed to a
// RecordSink in stream order, credit granted back as chunks are consumed (zguide ch. 7).
// Transport-free: the caller moves chunks and credit (transfer/stream_socket.h, or the
// controller inside its own protocol).
//
// Memory: the receiver consumes each chunk within OnChunk and buffers at most one
// incomplete record (its header, name and data so far). With at most `window` chunks in
// flight, a stream of any size costs the receiving side at most window × chunk size in
// transit plus one record.
#ifndef POLLEN_TRANSFER_STREAM_RECEIVER_H_
#define POLLEN_TRANSFER_STREAM_RECEIVER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "transfer/record_codec.h"
#include "transfer/stream_message.h"

namespace pollen::transfer {

inline constexpr uint32_t kDefaultWindow = 8;

// Where a receiver's records go, one at a time, in stream order (ascending names).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Stores one record. `name` passed ValidateRecordName; the views are valid during the
  // call only. When Commit returns ok the record is kept even if the stream fails later;
  // an error ends the stream.
  virtual Status Commit(std::string_view name, std::string_view data) = 0;
};

// Not thread-safe: one thread calls every method.
class StreamReceiver {
 public:
  // Commits into `sink` (not owned; it must outlive the receiver), accepts records within
  // `limits` and keeps `window` (> 0) chunks of credit granted; takes the chunks of stream
  // `stream_id` only.
  StreamReceiver(RecordSink* sink, const StreamLimits& limits = {},
                 uint32_t window = kDefaultWindow, uint64_t stream_id = 0);

  // The credit to put in the open message: the whole window. Call once, before any chunk.
  uint32_t InitialCredit();

  // Consumes the next chunk: checks its stream id, that its seq is the next one, that
  // credit was granted for it and that it is within limits.max_chunk_bytes, then parses it
  // and commits every record it completes, in order, after checking names (valid,
  // strictly ascending) and sizes. After the chunk with `last`, an error if the stream
  // ends inside a record. The error names the record (number, stream offset, name) or the
  // chunk and what is wrong. After an error nothing more is committed: every later call
  // returns that error. Records committed before the error stay committed.
  Status OnChunk(const StreamChunk& chunk);
  // The same for a chunk whose data was left in its message (no copy).
  Status OnChunk(const StreamChunkView& chunk);

  // The credit to grant back now: one per chunk consumed since credit was last granted,
  // once they are at least half the window (at least 1); else 0, as once the stream is done
  // or failed. Granting in batches halves the credit messages (and the wake-ups they cost
  // both ends) while the sender always has at least half the window to send.
  uint32_t TakeCredit();

  // The last chunk was consumed and every record in it committed.
  bool done() const { return done_; }
  const Status& error() const { return error_; }
  // Records and data bytes committed, stream bytes and chunks consumed.
  const TransferCounters& counters() const { return counters_; }
  // The last name committed ("" before the first): the cursor to resume after.
  const std::string& last_committed() const { return last_name_; }
  // Bytes of the incomplete record held now, and the most ever held.
  size_t buffered_bytes() const { return parser_.buffered_bytes(); }
  size_t max_buffered_bytes() const { return parser_.max_buffered_bytes(); }

 private:
  Status Commit(std::string_view name, std::string_view data);
  Status Fail(Status error);

  RecordSink* sink_;
  StreamLimits limits_;
  uint32_t window_;
  uint32_t credit_batch_;
  uint64_t stream_id_;
  RecordParser parser_;
  RecordParser::RecordCallback commit_;
  uint64_t next_seq_ = 0;
  uint32_t outstanding_ = 0;  // chunks granted and not yet received
  uint32_t to_grant_ = 0;     // chunks consumed and not yet granted again
  bool done_ = false;
  Status error_;
  TransferCounters counters_;
  std::string last_name_;
};

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_STREAM_RECEIVER_H_
