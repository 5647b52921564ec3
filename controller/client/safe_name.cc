#include "controller/client/safe_name.h"

#include <string>

namespace pollen::controller {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The name as it may appear in a message: cut, with control bytes escaped.
std::string Shown(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 64)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  if (name.size() > 64) out += "...";
  return out;
}

}  // namespace

Status CheckSafeName(std::string_view what, std::string_view name) {
  const std::string prefix = std::string(what) + " '" + Shown(name) + "' ";
  if (name.empty()) return Status::Error(std::string(what) + " is empty");
  if (name.size() > kMaxSafeNameBytes) {
    return Status::Error(prefix + "is longer than " + std::to_string(kMaxSafeNameBytes) + " bytes");
  }
  if (!IsAlnum(name[0])) {
    return Status::Error(prefix + "must start with a letter or a digit");
  }
  for (char c : name) {
    if (!IsAlnum(c) && c != '.' && c != '_' && c != '-') {
      return Status::Error(prefix + "may hold only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

Status CheckNodeId(std::string_view id, size_t max_bytes) {
  if (id.empty() || id.size() > max_bytes) {
    return Status::Error("a node id has 1 to " + std::to_string(max_bytes) + " bytes");
  }
  for (char c : id) {
    if (c <= 0x20 || c >= 0x7f) {
      return Status::Error("node id '" + Shown(id) +
                           "' may hold only printable ASCII characters without spaces");
    }
  }
  return Status::Ok();
}

bool IsDisplayText(std::string_view text) {
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

Status CheckNightName(std::string_view night) {
  auto digits = [&](size_t from, size_t n, int* value) {
    *value = 0;
    for (size_t i = from; i < from + n; i++) {
      if (night[i] < '0' || night[i] > '9') return false;
      *value = *value * 10 + (night[i] - '0');
    }
    return true;
  };
  int year = 0, month = 0, day = 0;
  if (night.size() != 10 || night[4] != '-' || night[7] != '-' || !digits(0, 4, &year) ||
      !digits(5, 2, &month) || !digits(8, 2, &day) || month < 1 || month > 12 || day < 1 ||
      day > 31) {
    return Status::Error("'" + std::string(night.substr(0, 64)) +
                         "' is not a night: give a date, YYYY-MM-DD");
  }
  return Status::Ok();
}

}  // namespace pollen::controller
