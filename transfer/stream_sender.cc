#include "transfer/stream_sender.h"

#include <algorithm>
#include <limits>

#include "transfer/record_name.h"

namespace pollen::transfer {

StreamSender::StreamSender(RecordSource* source, size_t chunk_bytes, const StreamLimits& limits,
                           uint64_t stream_id)
    : source_(source), chunk_bytes_(chunk_bytes), limits_(limits), stream_id_(stream_id) {
  POLLEN_CHECK(source_ != nullptr);
  POLLEN_CHECK(chunk_bytes_ > 0);
}

void StreamSender::AddCredit(uint32_t chunks) {
  credit_ = static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{credit_} + chunks, std::numeric_limits<uint32_t>::max()));
}

Status StreamSender::Advance() {
  have_record_ = false;
  offset_ = 0;
  std::string previous = std::move(name_);
  Result<bool> more = source_->Next(&name_, &data_);
  if (!more.ok()) return more.status();
  if (!more.value()) {
    source_done_ = true;
    name_ = std::move(previous);
    return Status::Ok();
  }
  const std::string where = "record " + std::to_string(counters_.records + 1) + " to send";
  if (Status s = ValidateRecordName(name_, limits_.max_name_bytes); !s.ok()) {
    return Status::Error(where + ": " + s.message());
  }
  if (data_.size() > limits_.max_record_bytes) {
    return Status::Error(where + " " + PrintableName(name_) + ": " + std::to_string(data_.size()) +
                         " bytes, more than the limit of " +
                         std::to_string(limits_.max_record_bytes));
  }
  if (!previous.empty() && !(previous < name_)) {
    return Status::Error(where + " " + PrintableName(name_) + " comes after " +
                         PrintableName(previous) + ": names must be in ascending order");
  }
  prefix_.clear();
  AppendRecordHeader(&prefix_, name_, data_.size());
  have_record_ = true;
  return Status::Ok();
}

Result<std::optional<StreamChunk>> StreamSender::NextChunk() {
  if (!error_.ok()) return error_;
  if (done_ || credit_ == 0) return std::optional<StreamChunk>();
  const auto fail = [this](Status s) -> Result<std::optional<StreamChunk>> {
    error_ = std::move(s);
    return error_;
  };
  if (!have_record_ && !source_done_) {
    if (Status s = Advance(); !s.ok()) return fail(std::move(s));
  }
  StreamChunk chunk{stream_id_, next_seq_, std::move(spare_), false};
  spare_ = std::string();
  chunk.data.clear();
  chunk.data.reserve(chunk_bytes_);
  while (have_record_ && chunk.data.size() < chunk_bytes_) {
    if (offset_ == 0) {
      counters_.records++;
      counters_.record_bytes += data_.size();
    }
    if (offset_ < prefix_.size()) {
      const size_t n = std::min(prefix_.size() - offset_, chunk_bytes_ - chunk.data.size());
      chunk.data.append(prefix_, offset_, n);
      offset_ += n;
    }
    if (offset_ >= prefix_.size()) {
      const size_t at = offset_ - prefix_.size();
      const size_t n = std::min(data_.size() - at, chunk_bytes_ - chunk.data.size());
      chunk.data.append(data_, at, n);
      offset_ += n;
    }
    if (offset_ == prefix_.size() + data_.size()) {
      if (Status s = Advance(); !s.ok()) return fail(std::move(s));
    }
  }
  chunk.last = !have_record_;
  done_ = chunk.last;
  credit_--;
  next_seq_++;
  counters_.chunks++;
  counters_.stream_bytes += chunk.data.size();
  return std::optional<StreamChunk>(std::move(chunk));
}

}  // namespace pollen::transfer
