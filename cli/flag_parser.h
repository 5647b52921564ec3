// Parses `--name=value`, `--name value`, libFuzzer's `-name=value`, and bare `--flag` for
// booleans, into the fields of an options struct; everything else is a positional argument.
// Every mistake is a clear error naming the flag, never a crash.
#ifndef POLLEN_CLI_FLAG_PARSER_H_
#define POLLEN_CLI_FLAG_PARSER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/status.h"

namespace pollen::cli {

class FlagParser {
 public:
  explicit FlagParser(std::string command) : command_(std::move(command)) {}

  // Registers a flag; `name` uses underscores (max_len), accepted as --max-len and --max_len.
  void Add(const std::string& name, uint32_t* v, const std::string& help);
  void Add(const std::string& name, uint64_t* v, const std::string& help);
  void Add(const std::string& name, std::string* v, const std::string& help);
  void Add(const std::string& name, bool* v, const std::string& help);

  // Fills the flags; `positional` gets the rest. Sets *help when --help/-h is given.
  Status Parse(int argc, char** argv, std::vector<std::string>* positional, bool* help);

  // The flags with their defaults and help, one per line.
  std::string Usage() const;

 private:
  struct Flag {
    std::string name;
    std::string help;
    std::string default_value;
    bool is_bool = false;
    std::function<Status(const std::string&)> set;
  };
  const Flag* Find(const std::string& name) const;

  std::string command_;
  std::vector<Flag> flags_;
};

// Parses a non-negative decimal integer that fits in `max`.
Status ParseUnsigned(const std::string& flag, const std::string& text, uint64_t max, uint64_t* out);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_FLAG_PARSER_H_
