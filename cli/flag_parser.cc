#include "cli/flag_parser.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

namespace pollen::cli {
namespace {

std::string Underscored(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// A boolean flag's value: empty (a bare --flag), 1 or true; 0 or false. Whether it was one.
bool ParseTrueFalse(const std::string& s, bool* v) {
  if (s == "" || s == "1" || s == "true") {
    *v = true;
  } else if (s == "0" || s == "false") {
    *v = false;
  } else {
    return false;
  }
  return true;
}

}  // namespace

Status ParseUnsigned(const std::string& flag, const std::string& text, uint64_t max,
                     uint64_t* out) {
  if (text.empty() || text.size() > 20 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Status::Error("--" + FlagDashedName(flag) + " expects a non-negative integer, got '" +
                         text + "'");
  }
  uint64_t v = 0;
  for (char c : text) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (max - digit) / 10) {
      return Status::Error("--" + FlagDashedName(flag) + " is too large: " + text + " (at most " +
                           std::to_string(max) + ")");
    }
    v = v * 10 + digit;
  }
  *out = v;
  return Status::Ok();
}

void FlagParser::Add(const std::string& name, uint32_t* v, const std::string& help) {
  Push({name, help, std::to_string(*v), false, [name, v](const std::string& s) {
          uint64_t x;
          Status st = ParseUnsigned(name, s, std::numeric_limits<uint32_t>::max(), &x);
          if (st.ok()) *v = static_cast<uint32_t>(x);
          return st;
        }});
}

void FlagParser::Add(const std::string& name, uint64_t* v, const std::string& help) {
  Push({name, help, std::to_string(*v), false, [name, v](const std::string& s) {
          return ParseUnsigned(name, s, std::numeric_limits<uint64_t>::max(), v);
        }});
}

void FlagParser::Add(const std::string& name, std::string* v, const std::string& help) {
  Push({name, help, *v, false, [v](const std::string& s) {
          *v = s;
          return Status::Ok();
        }});
}

void FlagParser::Add(const std::string& name, bool* v, const std::string& help) {
  Push({name, help, *v ? "true" : "false", true, [name, v](const std::string& s) {
          if (!ParseTrueFalse(s, v)) {
            return Status::Error("--" + FlagDashedName(name) + " expects true or false, got '" + s +
                                 "'");
          }
          return Status::Ok();
        }});
}

void FlagParser::Add(const std::string& name, node::Setting* v, const std::string& help) {
  Push({name, help, node::SettingName(*v), true, [name, v](const std::string& s) {
          bool on = false;
          if (ParseTrueFalse(s, &on)) {
            *v = on ? node::Setting::kOn : node::Setting::kOff;
          } else if (s == "auto") {
            *v = node::Setting::kAuto;
          } else {
            return Status::Error("--" + FlagDashedName(name) +
                                 " expects true, false or auto, got '" + s + "'");
          }
          return Status::Ok();
        }});
}

void FlagParser::Push(Flag flag) {
  // Two flags of one name would leave the second unreachable (Find takes the first).
  if (Find(flag.name) != nullptr) {
    std::fprintf(stderr, "pollen: flag --%s registered twice for 'pollen %s'\n",
                 FlagDashedName(flag.name).c_str(), command_.c_str());
    std::abort();
  }
  flags_.push_back(std::move(flag));
}

const FlagParser::Flag* FlagParser::Find(const std::string& name) const {
  std::string key = Underscored(name);
  for (const auto& f : flags_) {
    if (f.name == key) return &f;
  }
  return nullptr;
}

std::string FlagDashedName(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string FlagEnvironmentName(const std::string& name) {
  std::string env = "POLLEN_";
  for (char c : Underscored(name)) {
    env += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return env;
}

Status FlagParser::ParseEnvironment() {
  for (const Flag& flag : flags_) {
    const std::string variable = FlagEnvironmentName(flag.name);
    // Empty counts as unset: `POLLEN_INSECURE_PLAINTEXT=` must not turn plain text on, as
    // a bare --insecure-plaintext would.
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr || value[0] == '\0') continue;
    if (Status st = flag.set(value); !st.ok()) {
      return Status::Error("environment variable " + variable + ": " + st.message());
    }
  }
  return Status::Ok();
}

Status FlagParser::Parse(int argc, char** argv, std::vector<std::string>* positional, bool* help) {
  *help = false;
  if (environment_) {
    if (Status st = ParseEnvironment(); !st.ok()) return st;
  }
  bool only_positional = false;
  for (int i = 0; i < argc; i++) {
    std::string arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional->push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (arg == "--help" || arg == "-h" || arg == "-help") {
      *help = true;
      continue;
    }
    bool double_dash = arg.rfind("--", 0) == 0;
    std::string body = arg.substr(double_dash ? 2 : 1);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return Status::Error("unknown flag " + arg + " for 'pollen " + command_ + "' (see pollen " +
                           command_ + " --help)");
    }
    std::string value;
    if (eq != std::string::npos) {
      value = body.substr(eq + 1);
    } else if (!flag->is_bool) {
      if (i + 1 >= argc) return Status::Error("--" + FlagDashedName(flag->name) + " needs a value");
      value = argv[++i];
    }
    Status st = flag->set(value);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

std::string FlagParser::Usage() const {
  std::string out;
  if (environment_ && !flags_.empty()) {
    const std::string& example = flags_.front().name;
    out += "  (each flag may also be set in the environment: " + FlagEnvironmentName(example) +
           "=x for --" + FlagDashedName(example) + "=x;\n   the command line wins)\n";
  }
  for (const auto& f : flags_) {
    std::string left = "  --" + FlagDashedName(f.name) + (f.is_bool ? "" : "=N");
    if (!f.is_bool && f.default_value.empty()) left = "  --" + FlagDashedName(f.name) + "=PATH";
    if (left.size() < 24) left.resize(24, ' ');
    out += left + " " + f.help;
    if (!f.is_bool && !f.default_value.empty()) out += " [" + f.default_value + "]";
    if (f.is_bool && f.default_value == "true")
      out += " [on; --" + FlagDashedName(f.name) + "=false: off]";
    if (f.is_bool && f.default_value == "auto") out += " [auto]";
    out += "\n";
  }
  return out;
}

}  // namespace pollen::cli
