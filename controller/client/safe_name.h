// Names that become directory names or registry keys: campaign names, build ids, node ids.
//
// A campaign's merged corpus lives in DATA/campaigns/<name>/<build-id>/, so a name must never
// reach outside that directory or hide in it: no '/', no "..", no leading '.', nothing but
// letters, digits, '.', '_' and '-'. Node ids are only keys and log text: printable ASCII
// without spaces. Thread-safe pure functions.
#ifndef POLLEN_CONTROLLER_CLIENT_SAFE_NAME_H_
#define POLLEN_CONTROLLER_CLIENT_SAFE_NAME_H_

#include <cstddef>
#include <string_view>

#include "base/status.h"

namespace pollen::controller {

inline constexpr size_t kMaxSafeNameBytes = 128;

// Ok when `name` is 1 to 128 bytes of [A-Za-z0-9._-] starting with a letter or a digit.
// The error says which `what` ("campaign name", "build id") is wrong and why.
Status CheckSafeName(std::string_view what, std::string_view name);

// Ok when `id` is 1 to max_bytes bytes of printable ASCII without spaces (0x21-0x7e).
Status CheckNodeId(std::string_view id, size_t max_bytes);

// Ok when `night` is a date, YYYY-MM-DD (month 01-12, day 01-31): the name of a night of a
// nightly campaign, a key and a directory name.
Status CheckNightName(std::string_view night);

// True when every byte of `text` is printable ASCII or a space, or beyond ASCII (UTF-8):
// no control characters in what is shown in tables and logs.
bool IsDisplayText(std::string_view text);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_CLIENT_SAFE_NAME_H_
