// What `pollen fuzz` and `pollen node` share once their flags are parsed: check the target,
// read the seeds and the dictionary, open the corpus store in the work directory, run the
// coordinator (with an observer, for `pollen node`), and print the summary.
#ifndef POLLEN_CLI_FUZZ_SESSION_H_
#define POLLEN_CLI_FUZZ_SESSION_H_

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "cli/flag_parser.h"
#include "node/coordinator_observer.h"
#include "node/fuzz_options.h"
#include "node/worker_launcher.h"
#include "storage/corpus_store.h"

namespace pollen::cli {

// Registers every flag of POLLEN_FUZZ_FLAGS (node/fuzz_options.h) on `parser`.
void AddFuzzFlags(FlagParser& parser, node::FuzzOptions* options);

// What an observer is made from: known once the target is checked and the store open.
struct SessionInfo {
  std::string target_name;  // the target's file name
  std::string build_id;     // node::BuildIdOf(target)
  storage::CorpusStore* store = nullptr;
  // The coordinator's launcher (for an observer that minimizes crashes); outlives the run.
  node::WorkerLauncher* launcher = nullptr;
};

// Makes the coordinator's observer; an error ends the session as a set-up error.
using ObserverFactory =
    std::function<Result<std::unique_ptr<node::CoordinatorObserver>>(const SessionInfo&)>;

// Runs one fuzzing session for `options` (target and corpus_dirs set, flags parsed);
// `command` names it in messages ("fuzz", "node"). `make_observer` may be empty: no
// observer, which is `pollen fuzz`. An observer that requests a stop as soon as it is made
// (a campaign stopped at the controller) ends the session with exit code 0 before any
// worker starts. Returns the process exit code (cli/commands.h).
int RunFuzzSession(const std::string& command, node::FuzzOptions& options,
                   const ObserverFactory& make_observer);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_FUZZ_SESSION_H_
