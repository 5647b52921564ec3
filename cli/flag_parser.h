// Parses `--name=value`, `--name value`, libFuzzer's `-name=value`, and bare `--flag` for
// booleans, into the fields of an options struct; everything else is a positional argument.
// Every mistake on the command line is a clear error naming the flag, never a crash (a
// flag registered twice is the program's mistake: it aborts, naming the flag).
#ifndef POLLEN_CLI_FLAG_PARSER_H_
#define POLLEN_CLI_FLAG_PARSER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/fuzz_options.h"

namespace pollen::cli {

class FlagParser {
 public:
  explicit FlagParser(std::string command) : command_(std::move(command)) {}

  // Registers a flag; `name` uses underscores (max_len), accepted as --max-len and --max_len.
  // Aborts when a flag of that name exists (the second would never be set).
  void Add(const std::string& name, uint32_t* v, const std::string& help);
  void Add(const std::string& name, uint64_t* v, const std::string& help);
  void Add(const std::string& name, std::string* v, const std::string& help);
  void Add(const std::string& name, bool* v, const std::string& help);
  // true/false as for a bool (bare: true), or auto.
  void Add(const std::string& name, node::Setting* v, const std::string& help);

  // Lets every flag also come from the environment, as POLLEN_ and its name in capitals
  // (POLLEN_NODE_ID for --node-id): for services configured by Kubernetes. A flag given on
  // the command line wins over its variable; an empty variable counts as unset. Off by
  // default: a variable left in a developer's shell should not change what `pollen fuzz` does.
  void EnableEnvironment() { environment_ = true; }

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
  void Push(Flag flag);
  const Flag* Find(const std::string& name) const;

  Status ParseEnvironment();

  std::string command_;
  std::vector<Flag> flags_;
  bool environment_ = false;
};

// The environment variable of a flag: POLLEN_ and the name in capitals ("node_id" ->
// "POLLEN_NODE_ID").
std::string FlagEnvironmentName(const std::string& name);

// A flag's name as the command line shows it: dashes for underscores ("max_len" -> "max-len").
std::string FlagDashedName(std::string name);

// Parses a non-negative decimal integer that fits in `max`.
Status ParseUnsigned(const std::string& flag, const std::string& text, uint64_t max, uint64_t* out);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_FLAG_PARSER_H_
