// Class 4, a configuration language: "[section]" lines and "key = value" lines, with
// whitespace allowed around the '=' and values parsed with sscanf. The bug needs, in
// section [server], "port" between 1 and 65535 and "workers" equal to port / 1000, and in a
// later section [limits], "max" equal to port * 2; all three keys compared with strcmp.
#include <cstdio>
#include <cstring>
#include <string>

#include "puzzle_util.h"

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string section;
  int port = -1, workers = -1, max = -1;
  bool limits_after_server = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = Trim(text.substr(at, end - at));
    at = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      if (line.back() != ']') return 0;
      section = line.substr(1, line.size() - 2);
      if (strcmp(section.c_str(), "limits") == 0 && port > 0) limits_after_server = true;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) return 0;
    std::string key = Trim(line.substr(0, eq)), value = Trim(line.substr(eq + 1));
    int v = 0;
    if (std::sscanf(value.c_str(), "%d", &v) != 1) return 0;
    if (strcmp(section.c_str(), "server") == 0) {
      if (strcmp(key.c_str(), "port") == 0) port = v;
      if (strcmp(key.c_str(), "workers") == 0) workers = v;
    } else if (strcmp(section.c_str(), "limits") == 0) {
      if (strcmp(key.c_str(), "max") == 0) max = v;
    }
  }
  if (port < 1 || port > 65535 || !limits_after_server) return 0;
  if (workers == port / 1000 && max == port * 2) puzzle::Crash();
  return 0;
}
