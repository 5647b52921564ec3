// Errors from the outside world (files, flags, decoding, storage, peers) as values.
//
// A Status is either ok or carries one human-readable message that names what failed and,
// where possible, what to do, and a class a caller can act on (StatusCode). Bugs are not
// Statuses: they are CHECKs that abort.
#ifndef POLLEN_BASE_STATUS_H_
#define POLLEN_BASE_STATUS_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace pollen {

// What kind of failure a Status is, for a caller that acts on it: retry later, give up on
// the peer, report the input. A library's errors are classed at its one boundary
// (net/zmq_status.h for ZeroMQ); the codecs' decode errors have their own types
// (DecodeError, DropReason), and a Status without a class is kFailed.
enum class StatusCode : uint8_t {
  kOk,
  kFailed,       // anything else: the message says what
  kInvalid,      // bad data or a bad argument from outside: the same again cannot succeed
  kUnavailable,  // the peer or resource is not there now: later may succeed
  kOverloaded,   // a queue or a limit is full: back off and retry
  kInterrupted,  // a signal or a stop request cut the call short
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    return Status(StatusCode::kFailed, std::move(message));
  }
  // An error of class `code` (kOk is taken as kFailed: an error is never ok).
  static Status Error(StatusCode code, std::string message) {
    return Status(code == StatusCode::kOk ? StatusCode::kFailed : code, std::move(message));
  }

  bool ok() const { return !message_.has_value(); }
  StatusCode code() const { return code_; }
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::kOk;
  std::optional<std::string> message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {   // NOLINT
    if (std::get<Status>(v_).ok()) std::abort();  // an ok Status carries no value: a bug
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace pollen

// Aborts with context when an internal invariant fails (a bug, never bad input).
#define POLLEN_CHECK(cond)                                                                    \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "pollen: CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

#endif  // POLLEN_BASE_STATUS_H_
