// The rules every record name of a NamedByteSequence stream follows (docs/transfer.md,
// "Names"). Both ends check them: the sender before it sends a record, the receiver before
// it buffers the record's data, so a hostile peer can never make a sink write outside the
// place it was given.
#ifndef POLLEN_TRANSFER_RECORD_NAME_H_
#define POLLEN_TRANSFER_RECORD_NAME_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace pollen::transfer {

inline constexpr size_t kMaxRecordNameBytes = 255;

// Ok when `name` is a valid record name: non-empty, at most `max_bytes` bytes, no NUL byte,
// not an absolute path (no leading '/'), and no ".." component ('/'-separated). Otherwise
// an error that quotes the name (PrintableName) and says which rule it breaks.
// Thread-safe (no state).
Status ValidateRecordName(std::string_view name, size_t max_bytes = kMaxRecordNameBytes);

// `name` in double quotes for messages and logs: bytes outside printable ASCII, '"' and '\'
// escaped as \xNN, cut to its first 64 bytes with "..." after.
std::string PrintableName(std::string_view name);

}  // namespace pollen::transfer

#endif  // POLLEN_TRANSFER_RECORD_NAME_H_
