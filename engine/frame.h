// Framing of Cap'n Proto messages on a byte stream (the worker control pipes).
//
// A frame is a little-endian u32 holding the message size in 8-byte words, followed by the
// message as a Cap'n Proto flat array. The decoder accumulates bytes from any number of
// partial reads and yields whole, word-aligned frames; a frame that announces more than its
// limit is an error, never an allocation of the announced size.
#ifndef POLLEN_ENGINE_FRAME_H_
#define POLLEN_ENGINE_FRAME_H_

#include <capnp/message.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace pollen::engine {

// A decoded frame: 8-byte aligned storage (capnp::word itself cannot live in a vector).
using FrameWords = std::vector<uint64_t>;

// The frame as Cap'n Proto words, for FlatArrayMessageReader.
inline kj::ArrayPtr<const capnp::word> AsWords(const FrameWords& words) {
  return kj::arrayPtr(reinterpret_cast<const capnp::word*>(words.data()), words.size());
}

// Encodes `message` as one frame.
std::vector<uint8_t> EncodeFrame(capnp::MessageBuilder& message);

class FrameDecoder {
 public:
  explicit FrameDecoder(size_t max_frame_words) : max_frame_words_(max_frame_words) {}

  // Adds bytes received from the stream.
  void Append(const uint8_t* data, size_t size);

  enum class Next { kNeedMore, kFrame, kError };
  // Takes the next complete frame into `words` (kFrame), or says that more bytes are needed,
  // or that the stream is broken (kError, with `error` set; the decoder stays broken).
  Next Pop(FrameWords* words, std::string* error);

  size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  size_t max_frame_words_;
  std::vector<uint8_t> buffer_;
  size_t consumed_ = 0;
  bool broken_ = false;
};

// Blocking helpers over file descriptors. WriteFrame retries on EINTR and partial writes.
Status WriteFrame(int fd, capnp::MessageBuilder& message);

// Reads until one frame is complete. Returns an error on EOF ("closed") or a broken stream.
Status ReadFrame(int fd, FrameDecoder& decoder, FrameWords* words);

// Reader options for untrusted frames: bounded traversal and nesting.
capnp::ReaderOptions FrameReaderOptions();

}  // namespace pollen::engine

#endif  // POLLEN_ENGINE_FRAME_H_
