// How the developer-host commands write figures and times in their tables.
#ifndef POLLEN_CLI_TABLE_FORMAT_H_
#define POLLEN_CLI_TABLE_FORMAT_H_

#include <cstdint>
#include <string>

namespace pollen::cli {

// "12.3M", "4.5k", "812".
std::string Short(uint64_t n);

// Whole MiB: "29M".
std::string Mib(uint64_t bytes);

// Local time "2026-11-21 12:12", or "-" for no time (0).
std::string Date(int64_t unix_ms);

// An age: "42s", "17m", "3h".
std::string Ago(uint64_t ms);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_TABLE_FORMAT_H_
