#include "base/proc_stat.h"

#include <fstream>
#include <sstream>

namespace pollen::base {

std::vector<std::string> ProcSelfStatFields() {
  std::vector<std::string> fields;
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return fields;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  while (rest >> field) fields.push_back(field);
  return fields;
}

}  // namespace pollen::base
