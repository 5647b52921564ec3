// pollen corpus pull|push: a campaign's corpus between the controller and this host
// (docs/usage.md, "pollen corpus pull|push"; docs/controller.md, "Streams").
#ifndef POLLEN_CLI_CORPUS_SYNC_COMMAND_H_
#define POLLEN_CLI_CORPUS_SYNC_COMMAND_H_

namespace pollen::cli {

int PullCommand(int argc, char** argv);
int PushCommand(int argc, char** argv);

}  // namespace pollen::cli

#endif  // POLLEN_CLI_CORPUS_SYNC_COMMAND_H_
