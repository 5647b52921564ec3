#include "transfer/stream_receiver.h"

#include <algorithm>

#include "transfer/record_name.h"

namespace pollen::transfer {

StreamReceiver::StreamReceiver(RecordSink* sink, const StreamLimits& limits, uint32_t window,
                               uint64_t stream_id)
    : sink_(sink),
      limits_(limits),
      window_(window),
      credit_batch_(std::max<uint32_t>(1, window / 2)),
      stream_id_(stream_id),
      parser_(limits),
      commit_([this](std::string_view name, std::string_view data) { return Commit(name, data); }) {
  POLLEN_CHECK(sink_ != nullptr);
  POLLEN_CHECK(window_ > 0);
}

uint32_t StreamReceiver::InitialCredit() {
  POLLEN_CHECK(next_seq_ == 0 && outstanding_ == 0);
  outstanding_ = window_;
  return window_;
}

Status StreamReceiver::Fail(Status error) {
  error_ = std::move(error);
  return error_;
}

Status StreamReceiver::Commit(std::string_view name, std::string_view data) {
  const auto where = [&] {
    return "record " + std::to_string(counters_.records + 1) + " " + PrintableName(name);
  };
  if (!last_name_.empty() && !(last_name_ < name)) {
    return Status::Error(where() + " comes after " + PrintableName(last_name_) +
                         ": names must be in ascending order");
  }
  if (Status s = sink_->Commit(name, data); !s.ok()) {
    return Status::Error(where() + ": " + s.message());
  }
  counters_.records++;
  counters_.record_bytes += data.size();
  last_name_.assign(name);
  return Status::Ok();
}

Status StreamReceiver::OnChunk(const StreamChunk& chunk) {
  return OnChunk(StreamChunkView{chunk.stream_id, chunk.seq, chunk.data, chunk.last});
}

Status StreamReceiver::OnChunk(const StreamChunkView& chunk) {
  if (!error_.ok()) return error_;
  const std::string which = "chunk " + std::to_string(chunk.seq);
  if (done_) return Fail(Status::Error(which + " after the last chunk"));
  if (chunk.stream_id != stream_id_) {
    return Fail(Status::Error(which + " of stream " + std::to_string(chunk.stream_id) +
                              ", expected stream " + std::to_string(stream_id_)));
  }
  if (chunk.seq != next_seq_) {
    return Fail(Status::Error(which + " arrived where chunk " + std::to_string(next_seq_) +
                              " was expected (lost or reordered)"));
  }
  if (outstanding_ == 0) {
    return Fail(Status::Error(which + " was sent without credit"));
  }
  if (chunk.data.size() > limits_.max_chunk_bytes) {
    return Fail(Status::Error(which + " has " + std::to_string(chunk.data.size()) +
                              " bytes, more than the limit of " +
                              std::to_string(limits_.max_chunk_bytes)));
  }
  outstanding_--;
  next_seq_++;
  counters_.chunks++;
  counters_.stream_bytes += chunk.data.size();
  if (Status s = parser_.Feed(chunk.data, commit_); !s.ok()) return Fail(std::move(s));
  if (chunk.last) {
    if (Status s = parser_.Finish(); !s.ok()) return Fail(std::move(s));
    done_ = true;
    return Status::Ok();
  }
  to_grant_++;
  return Status::Ok();
}

uint32_t StreamReceiver::TakeCredit() {
  if (done_ || !error_.ok() || to_grant_ < credit_batch_) return 0;
  const uint32_t credit = to_grant_;
  to_grant_ = 0;
  outstanding_ += credit;
  return credit;
}

}  // namespace pollen::transfer
