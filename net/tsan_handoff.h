// Tells ThreadSanitizer about memory handed from one thread to another through a ZeroMQ
// message. libzmq from Debian is not built with TSan, so the synchronisation inside its
// queues is invisible to it: a frame one thread fills and sends zero-copy over inproc, and
// another receives and reads, looks like a race (docs/development.md, "Sanitizer runs").
// Call MarkSent after the last write to a message's data and before sending it, and
// MarkReceived after receiving one and before reading it. Without TSan both do nothing.
#ifndef POLLEN_NET_TSAN_HANDOFF_H_
#define POLLEN_NET_TSAN_HANDOFF_H_

#include <zmq.hpp>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define POLLEN_NET_TSAN 1
extern "C" void __tsan_release(void* addr);
extern "C" void __tsan_acquire(void* addr);
#endif
#endif

namespace pollen::net {

inline void MarkSent([[maybe_unused]] const zmq::message_t& message) {
#ifdef POLLEN_NET_TSAN
  __tsan_release(const_cast<void*>(message.data()));
#endif
}

inline void MarkReceived([[maybe_unused]] const zmq::message_t& message) {
#ifdef POLLEN_NET_TSAN
  __tsan_acquire(const_cast<void*>(message.data()));
#endif
}

}  // namespace pollen::net

#endif  // POLLEN_NET_TSAN_HANDOFF_H_
