#include "fuzztest/fuzz_driver.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/sha1.h"
#include "engine/runtime/pollen_program.h"
#include "fuzztest/registry.h"

namespace pollen::fuzztest {
namespace {

bool WriteWhole(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The newest failure artifact in `crashes` written at or after `since` (crash-, timeout-,
// oom-, leak-<sha1>, not their .txt reports); "" when there is none.
std::string NewestArtifact(const std::string& crashes, time_t since) {
  std::string best;
  time_t best_time = since;
  DIR* d = opendir(crashes.c_str());
  if (d == nullptr) return best;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name[0] == '.' || name.size() < 4 || name.compare(name.size() - 4, 4, ".txt") == 0)
      continue;
    struct stat st;
    std::string path = crashes + "/" + name;
    if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime >= best_time) {
      best = path;
      best_time = st.st_mtime;
    }
  }
  closedir(d);
  return best;
}

volatile sig_atomic_t g_child = 0;

// SIGINT and SIGTERM go to pollen, which stops cleanly (Ctrl-C reaches it anyway, through
// the terminal's process group; a `kill` of this process would not); we wait for it.
void Forward(int sig) {
  if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
}

// Runs `pollen fuzz` with POLLEN_FUZZ set; returns its exit code.
int RunPollen(const std::vector<std::string>& args, const std::string& full_name) {
  struct sigaction forward = {};
  struct sigaction old_int = {};
  struct sigaction old_term = {};
  forward.sa_handler = Forward;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setenv("POLLEN_FUZZ", full_name.c_str(), 1);
    std::string error;
    runtime::ExecPollen(args, &error);
    std::fprintf(stderr, "ERROR: %s\n", error.c_str());
    _exit(2);
  }
  g_child = pid;
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (pid < 0) return 2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace

int FuzzOneTest(const std::string& full_name, unsigned long seconds, unsigned workers) {
  FuzzTestBase* test = FindFuzzTest(full_name);
  if (test == nullptr) {
    std::fprintf(stderr, "ERROR: no fuzz test named %s; this program has:\n", full_name.c_str());
    for (const std::string& n : FuzzTestNames()) std::fprintf(stderr, "  %s\n", n.c_str());
    return 2;
  }
  const std::string self = runtime::SelfPath();
  const char* tmp = std::getenv("TMPDIR");
  std::string seeds =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/pollen-fuzz-test-XXXXXX";
  if (self.empty() || mkdtemp(seeds.data()) == nullptr) {
    std::fprintf(stderr, "ERROR: cannot find this program or make a temporary directory\n");
    return 2;
  }
  std::vector<std::string> texts = test->SeedTexts();
  for (size_t i = 0; i < texts.size(); i++)
    WriteWhole(seeds + "/seed-" + std::to_string(i + 1), texts[i]);
  // The failures found before start the run too (the plain test runs the same files).
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(test->CorpusDir(), ec)) {
    if (e.is_regular_file(ec) && e.path().filename().string()[0] != '.') {
      std::filesystem::copy_file(e.path(), seeds + "/" + e.path().filename().string(), ec);
    }
  }
  const char* env_workdir = std::getenv("POLLEN_FUZZ_WORKDIR");
  std::string workdir =
      env_workdir != nullptr && *env_workdir != '\0'
          ? env_workdir
          : ".pollen/fuzz-tests/" + self.substr(self.rfind('/') + 1) + "/" + full_name;
  const time_t start = std::time(nullptr);
  int code =
      RunPollen({"pollen", "fuzz", self, seeds, "--workdir=" + workdir,
                 "--time=" + std::to_string(seconds), "--workers=" + std::to_string(workers)},
                full_name);
  std::filesystem::remove_all(seeds, ec);
  if (code != 1) return code;
  std::string artifact = NewestArtifact(workdir + "/crashes", start);
  if (artifact.empty()) {
    std::fprintf(stderr, "ERROR: pollen found a failure but its artifact is not in %s/crashes\n",
                 workdir.c_str());
    return 1;
  }
  std::string text = ReadWhole(artifact);
  std::string dir = test->CorpusDir();
  std::filesystem::create_directories(dir, ec);
  std::string path =
      dir + "/" +
      base::Sha1Hex(reinterpret_cast<const uint8_t*>(text.data()), text.size()).substr(0, 16);
  if (!WriteWhole(path, text)) {
    std::fprintf(stderr, "ERROR: cannot write %s; the failing input is %s\n", path.c_str(),
                 artifact.c_str());
    return 1;
  }
  if (!text.empty() && text.back() != '\n') text += '\n';  // for the display only
  std::fprintf(stderr,
               "\nfailing input written to %s\n%s"
               "It runs with the test from now on: %s --gtest_filter=%s\n",
               path.c_str(), text.c_str(), self.c_str(), full_name.c_str());
  return 1;
}

}  // namespace pollen::fuzztest
