#include "transfer/record_name.h"

#include <cstdio>

namespace pollen::transfer {

Status ValidateRecordName(std::string_view name, size_t max_bytes) {
  const auto invalid = [&](const std::string& why) {
    return Status::Error("invalid record name " + PrintableName(name) + ": " + why);
  };
  if (name.empty()) return invalid("empty");
  if (name.size() > max_bytes) {
    return invalid(std::to_string(name.size()) + " bytes, more than the limit of " +
                   std::to_string(max_bytes));
  }
  if (name.find('\0') != std::string_view::npos) return invalid("contains a NUL byte");
  if (name.front() == '/') return invalid("absolute path");
  for (size_t start = 0; start <= name.size();) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start) == "..") return invalid("has a \"..\" component");
    start = end + 1;
  }
  return Status::Ok();
}

std::string PrintableName(std::string_view name) {
  constexpr size_t kShown = 64;
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < kShown; i++) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    }
  }
  out += name.size() > kShown ? "\"..." : "\"";
  return out;
}

}  // namespace pollen::transfer
