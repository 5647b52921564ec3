// JSON as text for files, reports, webhooks and `--json`: bytes that are not UTF-8 (a
// target's exception message, a host name) become U+FFFD instead of an exception, so that no
// text from a target or a peer can stop a night or a command.
#ifndef POLLEN_NIGHTLY_JSON_TEXT_H_
#define POLLEN_NIGHTLY_JSON_TEXT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace pollen::nightly {

inline std::string JsonText(const nlohmann::json& json, int indent = 2) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `text` cut to at most `max` bytes, never inside a UTF-8 sequence.
inline std::string CutUtf8(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end--;
  return text.substr(0, end);
}

}  // namespace pollen::nightly

#endif  // POLLEN_NIGHTLY_JSON_TEXT_H_
