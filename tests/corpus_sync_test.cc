// `pollen corpus push` and `pollen corpus pull` against a real `pollen controller` on
// loopback with CURVE keys from `pollen keygen`: 10,000 files pushed from one directory and
// pulled into another, a pull killed mid-stream and run again, and the one-line errors for
// an unreachable controller and a refused key. Every wait polls with a deadline.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "base/clock.h"
#include "base/sha1.h"
#include "controller/client/controller_client.h"
#include "tests/test_util.h"

namespace pollen::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr int kDeadlineS = 120;

// `count` files of distinct pseudo-random bytes, sizes in [min_size, max_size].
void WriteFiles(const std::string& dir, size_t count, size_t min_size, size_t max_size) {
  fs::create_directories(dir);
  std::mt19937 rng(7);
  for (size_t i = 0; i < count; i++) {
    std::string data(min_size + rng() % (max_size - min_size + 1), '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    const std::string id = std::to_string(i) + ":";
    data.replace(0, id.size(), id);
    char name[32];
    std::snprintf(name, sizeof(name), "seed-%05zu", i);
    WriteFile(dir + "/" + name, data);
  }
}

// SHA-1 -> contents of the regular files of `dir` (not dotfiles).
std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename().string()[0] == '.') continue;
    std::string data = ReadFile(e.path().string());
    out[base::Sha1Hex(reinterpret_cast<const uint8_t*>(data.data()), data.size())] = data;
  }
  return out;
}

size_t CountFiles(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().filename().string()[0] != '.') n++;
  }
  return n;
}

class CorpusSyncTest : public ::testing::Test {
 protected:
  CorpusSyncTest() : dir_(MakeTempDir()) {}
  ~CorpusSyncTest() override {
    controller_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Keys from `pollen keygen`, the controller on any port, and the campaign "json"
  // registered by a node.
  void StartController() {
    const std::string keys = dir_ + "/keys";
    fs::create_directories(keys + "/authorized");
    ASSERT_EQ(RunCommand({PollenBin(), "keygen", keys + "/controller"}, 30).exit_code, 0);
    ASSERT_EQ(RunCommand({PollenBin(), "keygen", keys + "/authorized/dev"}, 30).exit_code, 0);
    controller_ = std::make_unique<Background>(
        std::vector<std::string>{PollenBin(), "controller", "--listen=tcp://127.0.0.1:*",
                                 "--data=" + dir_ + "/data", "--keys=" + keys, "--status-every=0"});
    ASSERT_TRUE(controller_->WaitForOutput("listening on", kDeadlineS)) << controller_->output();
    const long port =
        NumberAfter(controller_->output(), "listening on tcp://127\\.0\\.0\\.1:([0-9]+)");
    ASSERT_GT(port, 0) << controller_->output();
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(port);
    flags_ = {"--controller=" + endpoint_, "--key=" + keys + "/authorized/dev",
              "--controller-key=" + keys + "/controller.pub", "--campaign=json"};
    auto options = controller::ClientOptionsFromKeyFiles(endpoint_, keys + "/authorized/dev",
                                                         keys + "/controller.pub");
    ASSERT_TRUE(options.ok()) << options.status().message();
    auto node = controller::ConnectController(*options);
    ASSERT_TRUE(node.ok());
    auto reg = (*node)->Call<controller::RegisterReply>(
        controller::RegisterRequest{"node-1", "json", "json_fuzzer", "0123456789abcdef", "", "host",
                                    1},
        30000);
    ASSERT_TRUE(reg.ok()) << reg.status().message();
  }

  std::vector<std::string> Corpus(const std::string& command,
                                  const std::vector<std::string>& args) {
    std::vector<std::string> argv = {PollenBin(), "corpus", command};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), flags_.begin(), flags_.end());
    return argv;
  }

  CommandResult Run(const std::string& command, const std::vector<std::string>& args) {
    CommandResult r = RunCommand(Corpus(command, args), kDeadlineS);
    controller_->ReadFor(0);
    return r;
  }

  std::string dir_;
  std::unique_ptr<Background> controller_;
  std::string endpoint_;
  std::vector<std::string> flags_;
};

TEST_F(CorpusSyncTest, TenThousandFilesPushedFromADirectoryArePulledIntoAnother) {
  StartController();
  const std::string seeds = dir_ + "/seeds", pulled = dir_ + "/pulled";
  WriteFiles(seeds, 10000, 50, 2000);
  CommandResult push = Run("push", {seeds});
  ASSERT_EQ(push.exit_code, 0) << push.output;
  EXPECT_THAT(push.output, HasSubstr("pushed 10000 inputs"));
  EXPECT_THAT(push.output, HasSubstr("campaign json now has 10000 pushed inputs"));
  CommandResult pull = Run("pull", {pulled});
  ASSERT_EQ(pull.exit_code, 0) << pull.output;
  EXPECT_THAT(pull.output, HasSubstr("pulled 10000 inputs"));
  EXPECT_EQ(Contents(pulled), Contents(seeds));
  EXPECT_FALSE(fs::exists(pulled + ".pollen-pull-json"));  // complete: no cursor left
}

TEST_F(CorpusSyncTest, APullKilledMidStreamResumesSendingAtMostOneWindowAgain) {
  StartController();
  const std::string seeds = dir_ + "/seeds", pulled = dir_ + "/pulled";
  constexpr size_t kMinSize = 9000;
  WriteFiles(seeds, 10000, kMinSize, 11000);  // about 100 MB
  CommandResult push = Run("push", {seeds});
  ASSERT_EQ(push.exit_code, 0) << push.output;  // failed once on a doubly loaded machine

  // --sync: an fsync per file keeps the pull going long enough to be killed in the middle.
  Background pull(Corpus("pull", {pulled, "--sync"}));
  const uint64_t deadline = base::MonotonicMs() + kDeadlineS * 1000ull;
  while (CountFiles(pulled) < 2000 && base::MonotonicMs() < deadline) pull.ReadFor(10);
  ASSERT_EQ(kill(-pull.pid(), SIGKILL), 0);
  pull.Wait(kDeadlineS);
  const size_t present = CountFiles(pulled);
  ASSERT_GE(present, 2000u);
  ASSERT_LT(present, 10000u) << "the pull ended before it could be killed";
  ASSERT_TRUE(fs::exists(pulled + ".pollen-pull-json"));

  CommandResult again = Run("pull", {pulled});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("resumed after"));
  const long resent = NumberAfter(again.output, "pulled ([0-9]+) inputs");
  ASSERT_GT(resent, 0) << again.output;
  // Sent twice: what the first pull had written after its last cursor. The cursor follows
  // the records within 1 MiB, and a window is 8 chunks of 256 KiB.
  const long twice = resent - static_cast<long>(10000 - present);
  std::printf("killed with %zu files written; the second pull sent %ld, %ld of them again\n",
              present, resent, twice);
  EXPECT_GE(twice, 0);
  EXPECT_LE(twice, static_cast<long>((8 * 256 * 1024) / kMinSize + 1)) << again.output;
  EXPECT_EQ(Contents(pulled), Contents(seeds));
}

TEST_F(CorpusSyncTest, AnUnreachableControllerAndARefusedKeyAreOneErrorLineEach) {
  // A port nothing listens on: bind one, note it, close it.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  CommandResult r = RunCommand(
      {PollenBin(), "corpus", "pull", dir_ + "/out", "--campaign=json", "--insecure-plaintext",
       "--timeout=2", "--controller=tcp://127.0.0.1:" + std::to_string(ntohs(addr.sin_port))},
      kDeadlineS);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did not answer within 2 s (no connection was made"));

  StartController();
  const std::string stranger = dir_ + "/stranger";
  ASSERT_EQ(RunCommand({PollenBin(), "keygen", stranger}, 30).exit_code, 0);
  flags_[1] = "--key=" + stranger;
  r = Run("push", {dir_});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("refused this key"));
}

}  // namespace
}  // namespace pollen::testing
