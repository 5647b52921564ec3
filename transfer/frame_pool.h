// Buffers for chunk frames, handed to libzmq without a copy and given back by libzmq's I/O
// thread once sent (docs/transfer.md, "No copies it can avoid": allocating and freeing a
// 256 KiB buffer per chunk costs page faults, the allocator returning such memory to the
// kernel). Used by transfer/stream_socket.cc and the controller's stream server and client.
//
// Thread safety: Take and Wrap on one thread; buffers come back from libzmq's I/O thread
// (guarded by a mutex). The pool lives as long as the last frame that refers to it.
#ifndef POLLEN_TRANSFER_FRAME_POOL_H_
#define POLLEN_TRANSFER_FRAME_POOL_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include <zmq.hpp>

namespace pollen::transfer {

class FramePool : public std::enable_shared_from_this<FramePool> {
 public:
  // Keeps at most `max_buffers` buffers for reuse; more are freed.
  static std::shared_ptr<FramePool> Make(size_t max_buffers) {
    return std::shared_ptr<FramePool>(new FramePool(max_buffers));
  }

  // A buffer to encode a frame into: one given back (with its capacity), or a new one.
  std::string Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return {};
    std::string buffer = std::move(free_.back());
    free_.pop_back();
    return buffer;
  }

  // A message that owns `bytes` and gives them back to the pool once libzmq is done.
  zmq::message_t Wrap(std::string bytes) {
    auto* frame = new Frame{std::move(bytes), shared_from_this()};
    return zmq::message_t(frame->bytes.data(), frame->bytes.size(), &Release, frame);
  }

 private:
  struct Frame {
    std::string bytes;
    std::shared_ptr<FramePool> pool;
  };

  explicit FramePool(size_t max_buffers) : max_buffers_(max_buffers) {}

  static void Release(void* /*data*/, void* hint) {
    auto* frame = static_cast<Frame*>(hint);
    {
      std::lock_guard<std::mutex> lock(frame->pool->mutex_);
      if (frame->pool->free_.size() < frame->pool->max_buffers_) {
        frame->pool->free_.push_back(std::move(frame->bytes));
      }
    }
    delete frame;
  }

  const size_t max_buffers_;
  std::mutex mutex_;
  std::vector<std::string> free_;
};

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_FRAME_POOL_H_
