// The sending end of a NamedByteSequence stream: records from a RecordSource, cut into
// chunks that leave only as the receiver grants credit (zguide ch. 7's credit-based flow
// control). Transport-free: the caller moves chunks and credit (transfer/stream_socket.h
// over a DEALER socket, or the controller inside its own protocol).
//
// Memory: one record (the one being cut) and one chunk, whatever the stream's size.
#ifndef POLLEN_TRANSFER_STREAM_SENDER_H_
#define POLLEN_TRANSFER_STREAM_SENDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "transfer/record_codec.h"
#include "transfer/stream_message.h"

namespace pollen::transfer {

inline constexpr size_t kDefaultChunkBytes = 256 << 10;

// Where a sender's records come from. A source yields names in strictly ascending byte
// order (std::string's operator<), so that a receiver that stopped can ask for "the names
// after the last one I committed" (docs/transfer.md, "Resume").
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // The next record into *name and *data (whose old contents are replaced): true; false
  // at the end; an error when the record cannot be read (which ends the stream).
  virtual Result<bool> Next(std::string* name, std::string* data) = 0;
};

// Not thread-safe: one thread calls every method.
class StreamSender {
 public:
  // Reads from `source` (not owned; it must outlive the sender) and cuts chunks of
  // `chunk_bytes` (> 0; the last chunk may be shorter) stamped with `stream_id`. Each
  // record is checked against `limits` (ValidateRecordName, data size, ascending order)
  // before any of it is sent.
  StreamSender(RecordSource* source, size_t chunk_bytes = kDefaultChunkBytes,
               const StreamLimits& limits = {}, uint64_t stream_id = 0);

  // The receiver granted `chunks` more chunks.
  void AddCredit(uint32_t chunks);

  // The next chunk if credit allows (each chunk uses one), else nullopt; also nullopt once
  // the chunk with `last` has been returned. Chunks are numbered 0, 1, 2, ...; together
  // they are the concatenation of the source's records (record_codec.h), cut every
  // chunk_bytes bytes. An empty source gives one empty chunk with `last`. Errors: the
  // source's, or a record that breaks the limits (naming it); after an error every call
  // returns it again.
  Result<std::optional<StreamChunk>> NextChunk();

  // Optional: gives back the data buffer of a chunk that was sent, so that the next chunk
  // reuses its memory instead of allocating (a stream then allocates nothing per chunk).
  void Recycle(std::string buffer) { spare_ = std::move(buffer); }

  // The chunk with `last` was returned.
  bool done() const { return done_; }
  uint32_t credit() const { return credit_; }
  // Records and bytes put into the chunks returned so far (a record counts when its first
  // byte is sent), and those chunks.
  const TransferCounters& counters() const { return counters_; }
  // The last record name read from the source ("" before the first).
  const std::string& last_name() const { return name_; }

 private:
  // Makes the next record current; sets source_done_ at the end.
  Status Advance();

  RecordSource* source_;
  size_t chunk_bytes_;
  StreamLimits limits_;
  uint64_t stream_id_;
  uint32_t credit_ = 0;
  uint64_t next_seq_ = 0;
  bool source_done_ = false;
  bool done_ = false;
  Status error_;
  TransferCounters counters_;
  // The current record: header and name, then data; `offset_` bytes of the two already sent.
  std::string prefix_;
  std::string name_;
  std::string data_;
  size_t offset_ = 0;
  bool have_record_ = false;
  std::string spare_;  // a recycled chunk buffer
};

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_STREAM_SENDER_H_
