// Finding and running the `pollen` program from inside a target: a target run as a
// libFuzzer binary (engine/runtime/main.cc) and a typed fuzz test (fuzztest/) hand their
// fuzzing to it.
#ifndef POLLEN_ENGINE_RUNTIME_POLLEN_PROGRAM_H_
#define POLLEN_ENGINE_RUNTIME_POLLEN_PROGRAM_H_

#include <string>
#include <vector>

namespace pollen::runtime {

// This program's path (/proc/self/exe), or "" when it cannot be read.
std::string SelfPath();

// Replaces this process with `pollen` and `args` (args[0] is the name it sees): $POLLEN when
// set, else the `pollen` beside this program, else the one on PATH. Returns only when none
// could be run, with what the user should do in *error.
void ExecPollen(const std::vector<std::string>& args, std::string* error);

}  // namespace pollen::runtime

#endif  // POLLEN_ENGINE_RUNTIME_POLLEN_PROGRAM_H_
