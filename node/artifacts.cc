#include "node/artifacts.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/sha1.h"

namespace pollen::node {

std::string ArtifactPrefix(const std::string& kind) {
  if (kind == "timeout" || kind == "hang" || kind == "oom" || kind == "leak") return kind;
  return "crash";
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::Error("cannot create directory " + path + ": " + ec.message());
  return Status::Ok();
}

Result<std::vector<uint8_t>> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::Error(path + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::Error("error while reading " + path);
  return data;
}

Result<std::string> SaveArtifact(const std::string& dir, const std::vector<uint8_t>& input,
                                 const Failure& failure, const std::string& target) {
  Status made = MakeDirs(dir);
  if (!made.ok()) return made;
  std::string name = ArtifactPrefix(failure.kind) + "-" + base::Sha1Hex(input.data(), input.size());
  std::string path = dir + "/" + name;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(input.data()),
              static_cast<std::streamsize>(input.size()));
    if (!out) return Status::Error("cannot write " + path + ": " + std::strerror(errno));
  }
  std::ofstream rep(path + ".txt", std::ios::trunc);
  rep << "kind: " << failure.kind << "\n"
      << "signature: " << failure.signature << "\n"
      << "summary: " << failure.summary << "\n"
      << "input: " << path << " (" << input.size() << " bytes)\n"
      << "reproduce: pollen repro " << target << " " << path << "\n\n"
      << failure.report;
  if (!rep) return Status::Error("cannot write " + path + ".txt");
  return path;
}

}  // namespace pollen::node
