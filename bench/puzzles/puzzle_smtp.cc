// Class 4, a text protocol: lines of "COMMAND argument", commands matched after splitting
// on spaces and compared with strcmp, in a required order:
//   HELO <name>, MAIL <from>, RCPT <to> (two or more times), DATA <n>, QUIT
// where n, parsed with strtol, must equal 3 times the number of recipients plus one.
// The bug is a QUIT after a good DATA. A command out of order ends the session.
#include <cstdlib>
#include <cstring>
#include <string>

#include "puzzle_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  enum { kStart, kHelo, kMail, kRcpt, kData } state = kStart;
  long recipients = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    size_t space = line.find(' ');
    std::string command = line.substr(0, space);
    std::string arg = space == std::string::npos ? "" : line.substr(space + 1);
    if (strcmp(command.c_str(), "HELO") == 0) {
      if (state != kStart || arg.empty()) return 0;
      state = kHelo;
    } else if (strcmp(command.c_str(), "MAIL") == 0) {
      if (state != kHelo || arg.empty()) return 0;
      state = kMail;
    } else if (strcmp(command.c_str(), "RCPT") == 0) {
      if ((state != kMail && state != kRcpt) || arg.empty()) return 0;
      state = kRcpt;
      recipients++;
    } else if (strcmp(command.c_str(), "DATA") == 0) {
      if (state != kRcpt || recipients < 2) return 0;
      if (std::strtol(arg.c_str(), nullptr, 10) != 3 * recipients + 1) return 0;
      state = kData;
    } else if (strcmp(command.c_str(), "QUIT") == 0) {
      if (state == kData) puzzle::Crash();
      return 0;
    } else {
      return 0;
    }
  }
  return 0;
}
