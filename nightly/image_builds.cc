#include "nightly/image_builds.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <filesystem>

#include "nightly/child_process.h"
#include "node/text_file.h"

namespace pollen::nightly {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kPullTimeoutMs = 30 * 60 * 1000;  // an image pulled from a registry
constexpr uint64_t kCopyTimeoutMs = 10 * 60 * 1000;

// Runs podman with `args`; its output (stdout and stderr) in `log`, trimmed, into *out.
Status Podman(const std::string& podman, std::vector<std::string> args, const fs::path& log,
              uint64_t timeout_ms, std::string* out) {
  std::error_code ec;
  fs::remove(log, ec);
  args.insert(args.begin(), podman);
  ChildSpec spec;
  spec.argv = args;
  spec.output_path = log.string();
  Result<ChildProcess> child = ChildProcess::Start(spec);
  if (!child.ok()) {
    return Status::Error("cannot run " + podman + " (" + child.status().message() +
                         "): builds from images need podman (apt-get install podman)");
  }
  const ChildExit exit = child->Wait(timeout_ms);
  Result<std::string> text = node::ReadTextFile(log.string());
  std::string output = text.ok() ? *text : "";
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  if (out != nullptr) *out = output;
  if (exit.exit_code != 0) {
    std::string command;
    for (const std::string& a : args) command += (command.empty() ? "" : " ") + a;
    return Status::Error("`" + command + "` failed (" + exit.Describe() +
                         "): " + output.substr(output.size() > 2000 ? output.size() - 2000 : 0));
  }
  return Status::Ok();
}

}  // namespace

Status ExtractImageBuilds(NightlyCampaign* campaign, const std::string& dir,
                          const std::string& podman) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create " + dir + ": " + ec.message());
  const fs::path log = fs::path(dir) / "podman.log";
  std::string container;
  Status created =
      Podman(podman, {"create", "--quiet", campaign->image}, log, kPullTimeoutMs, &container);
  if (!created.ok()) return created;
  // The last line is the container's id (a pull may print before it).
  container = container.substr(container.find_last_of('\n') + 1);
  // (role, path in the image, where the campaign keeps it)
  std::vector<std::pair<std::string, std::string*>> builds = {{"fuzz", &campaign->fuzz_build}};
  if (!campaign->coverage_build.empty()) builds.push_back({"coverage", &campaign->coverage_build});
  for (auto& [name, path] : campaign->sanitizer_builds)
    builds.push_back({"sanitizer-" + name, &path});
  Status copied = Status::Ok();
  for (auto& [role, path] : builds) {
    const fs::path local = fs::path(dir) / role / fs::path(*path).filename();
    fs::create_directories(local.parent_path(), ec);
    copied = Podman(podman, {"cp", container + ":" + *path, local.string()}, log, kCopyTimeoutMs,
                    nullptr);
    if (!copied.ok()) {
      copied = Status::Error("builds." + role + ": " + *path + " of image " + campaign->image +
                             ": " + copied.message());
      break;
    }
    if (::chmod(local.c_str(), 0755) != 0) {
      copied = Status::Error("cannot make " + local.string() + " executable");
      break;
    }
    spdlog::info("image {}: builds.{} {} copied to {}", campaign->image, role, *path,
                 local.string());
    *path = local.string();
  }
  std::string ignored;
  Status removed = Podman(podman, {"rm", container}, log, kCopyTimeoutMs, &ignored);
  if (!removed.ok()) spdlog::warn("image {}: {}", campaign->image, removed.message());
  return copied;
}

}  // namespace pollen::nightly
