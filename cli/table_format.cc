#include "cli/table_format.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace pollen::cli {

std::string Short(uint64_t n) {
  char buf[32];
  if (n >= 10'000'000'000ull) {
    std::snprintf(buf, sizeof buf, "%.1fG", n / 1e9);
  } else if (n >= 10'000'000) {
    std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
  } else if (n >= 100'000) {
    std::snprintf(buf, sizeof buf, "%.1fk", n / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRIu64, n);
  }
  return buf;
}

std::string Mib(uint64_t bytes) { return std::to_string(bytes >> 20) + "M"; }

std::string Date(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::localtime(&t));
  return buf;
}

std::string Ago(uint64_t ms) {
  if (ms < 120'000) return std::to_string(ms / 1000) + "s";
  if (ms < 7'200'000) return std::to_string(ms / 60'000) + "m";
  return std::to_string(ms / 3'600'000) + "h";
}

}  // namespace pollen::cli
