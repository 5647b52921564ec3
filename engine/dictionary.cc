#include "engine/dictionary.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/hex.h"

namespace pollen::engine {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Parses one non-blank, non-comment line into `out`. Returns an empty string on success,
// else what is wrong with the line.
std::string ParseLine(std::string_view line, std::string* out) {
  // Optional name (AFL: `keyword` or `keyword@level`), then `=`, all before the quote.
  size_t i = 0;
  if (line[0] != '"') {
    while (i < line.size() && IsNameChar(line[i])) i++;
    if (i == 0) return "expected `\"value\"` or `name=\"value\"`";
    if (i < line.size() && line[i] == '@') {
      i++;
      size_t digits = i;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') i++;
      if (i == digits) return "expected a level number after `@`";
    }
    while (i < line.size() && IsSpace(line[i])) i++;
    if (i >= line.size() || line[i] != '=') return "expected `=` after the entry name";
    i++;
    while (i < line.size() && IsSpace(line[i])) i++;
    if (i >= line.size() || line[i] != '"') return "expected `\"` to open the value";
  }
  i++;  // the opening quote
  out->clear();
  for (; i < line.size(); i++) {
    char c = line[i];
    if (c == '"') {
      if (i + 1 != line.size()) return "unexpected text after the closing `\"`";
      if (out->empty()) return "empty entry";
      if (out->size() > Dictionary::kMaxEntrySize) {
        return "entry is " + std::to_string(out->size()) + " bytes, longer than the limit of " +
               std::to_string(Dictionary::kMaxEntrySize);
      }
      return "";
    }
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i >= line.size()) break;  // reported as unterminated below
    c = line[i];
    if (c == '\\' || c == '"') {
      out->push_back(c);
    } else if (c == 'x') {
      int hi = i + 1 < line.size() ? base::HexDigitValue(line[i + 1]) : -1;
      int lo = i + 2 < line.size() ? base::HexDigitValue(line[i + 2]) : -1;
      if (hi < 0 || lo < 0) return "`\\x` must be followed by two hex digits";
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      return std::string("unknown escape `\\") + c + "` (only \\\\, \\\" and \\xNN are allowed)";
    }
  }
  return "missing closing `\"`";
}

}  // namespace

Result<Dictionary> ParseDictionary(std::string_view text, std::string_view origin_name) {
  Dictionary dict;
  std::string entry;
  size_t line_number = 0;
  while (!text.empty()) {
    line_number++;
    size_t eol = text.find('\n');
    std::string_view line = Trim(text.substr(0, eol));
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.empty() || line[0] == '#') continue;
    std::string error = ParseLine(line, &entry);
    if (!error.empty()) {
      return Status::Error(std::string(origin_name) + ":" + std::to_string(line_number) +
                           ": bad dictionary entry: " + error);
    }
    dict.entries.push_back(entry);
  }
  return dict;
}

Result<Dictionary> LoadDictionaryFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::Error("cannot read dictionary file '" + path + "': " + std::strerror(errno));
  }
  std::string contents;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), file)) > 0) contents.append(buf, n);
  // A directory opens fine and fails on the first read (EISDIR).
  int read_errno = std::ferror(file) ? errno : 0;
  std::fclose(file);
  if (read_errno != 0) {
    return Status::Error("cannot read dictionary file '" + path +
                         "': " + std::strerror(read_errno));
  }
  return ParseDictionary(contents, path);
}

}  // namespace pollen::engine
