#include "engine/frame.h"

#include <capnp/serialize.h>
#include <errno.h>
#include <unistd.h>

#include <cstring>

namespace pollen::engine {

std::vector<uint8_t> EncodeFrame(capnp::MessageBuilder& message) {
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(message);
  uint32_t words = static_cast<uint32_t>(flat.size());
  std::vector<uint8_t> out(4 + flat.size() * sizeof(capnp::word));
  out[0] = static_cast<uint8_t>(words);
  out[1] = static_cast<uint8_t>(words >> 8);
  out[2] = static_cast<uint8_t>(words >> 16);
  out[3] = static_cast<uint8_t>(words >> 24);
  std::memcpy(out.data() + 4, flat.begin(), flat.size() * sizeof(capnp::word));
  return out;
}

void FrameDecoder::Append(const uint8_t* data, size_t size) {
  if (consumed_ > 0 && consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  }
  buffer_.insert(buffer_.end(), data, data + size);
}

FrameDecoder::Next FrameDecoder::Pop(FrameWords* words, std::string* error) {
  if (broken_) {
    *error = "stream already broken";
    return Next::kError;
  }
  size_t avail = buffer_.size() - consumed_;
  if (avail < 4) return Next::kNeedMore;
  const uint8_t* p = buffer_.data() + consumed_;
  uint32_t n = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
               (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
  if (n == 0 || n > max_frame_words_) {
    broken_ = true;
    *error =
        "frame of " + std::to_string(n) + " words (limit " + std::to_string(max_frame_words_) + ")";
    return Next::kError;
  }
  size_t bytes = static_cast<size_t>(n) * sizeof(capnp::word);
  if (avail < 4 + bytes) return Next::kNeedMore;
  words->resize(n);
  std::memcpy(words->data(), p + 4, bytes);
  consumed_ += 4 + bytes;
  if (consumed_ > 65536 && consumed_ * 2 > buffer_.size()) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<ptrdiff_t>(consumed_));
    consumed_ = 0;
  }
  return Next::kFrame;
}

Status WriteFrame(int fd, capnp::MessageBuilder& message) {
  std::vector<uint8_t> frame = EncodeFrame(message);
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t w = write(fd, frame.data() + done, frame.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::Error(std::string("write: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status ReadFrame(int fd, FrameDecoder& decoder, FrameWords* words) {
  std::string error;
  uint8_t buf[4096];
  while (true) {
    switch (decoder.Pop(words, &error)) {
      case FrameDecoder::Next::kFrame:
        return Status::Ok();
      case FrameDecoder::Next::kError:
        return Status::Error(error);
      case FrameDecoder::Next::kNeedMore:
        break;
    }
    ssize_t r = read(fd, buf, sizeof(buf));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::Error(std::string("read: ") + std::strerror(errno));
    }
    if (r == 0) return Status::Error("closed");
    decoder.Append(buf, static_cast<size_t>(r));
  }
}

capnp::ReaderOptions FrameReaderOptions() {
  capnp::ReaderOptions options;
  options.traversalLimitInWords = 64 * 1024 * 1024 / sizeof(capnp::word);
  options.nestingLimit = 16;
  return options;
}

}  // namespace pollen::engine
