// The `pollen` subcommands. Each takes the arguments after its name and returns the
// process exit code: 0 done and no failure, 1 a failure was found (or reproduced),
// 2 bad usage or set-up error, 130 interrupted.
#ifndef POLLEN_CLI_COMMANDS_H_
#define POLLEN_CLI_COMMANDS_H_

namespace pollen::cli {

int FuzzCommand(int argc, char** argv);
int ReproCommand(int argc, char** argv);
int MinimizeCommand(int argc, char** argv);
int LibFuzzerCommand(int argc, char** argv);
int CorpusCommand(int argc, char** argv);
int BrokerCommand(int argc, char** argv);
int KeygenCommand(int argc, char** argv);
int ConfigCommand(int argc, char** argv);
int NodeCommand(int argc, char** argv);
int ControllerCommand(int argc, char** argv);
int ListCommand(int argc, char** argv);
int StatusCommand(int argc, char** argv);
int StartCommand(int argc, char** argv);
int StopCommand(int argc, char** argv);
int CrashesCommand(int argc, char** argv);
int NightlyCommand(int argc, char** argv);
int CoverageCommand(int argc, char** argv);
int ReportCommand(int argc, char** argv);
int BuildCommand(int argc, char** argv);

constexpr int kExitOk = 0;
constexpr int kExitFailureFound = 1;
constexpr int kExitUsage = 2;

}  // namespace pollen::cli

#endif  // POLLEN_CLI_COMMANDS_H_
