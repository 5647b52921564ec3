#include "net/curve_keys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <vector>

namespace pollen::net {
namespace {

constexpr size_t kZ85KeyChars = 40;

bool IsZ85Key(const std::string& text) {
  if (text.size() != kZ85KeyChars) return false;
  uint8_t decoded[32];
  return zmq_z85_decode(decoded, text.c_str()) != nullptr;
}

// The first line of `path` that is neither blank nor a comment, trimmed.
Result<std::string> ReadKeyLine(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Error("cannot read key file " + path + ": " + std::strerror(errno));
  std::string line;
  while (std::getline(in, line)) {
    auto not_space = [](char c) { return !std::isspace(static_cast<unsigned char>(c)); };
    line.erase(line.begin(), std::find_if(line.begin(), line.end(), not_space));
    line.erase(std::find_if(line.rbegin(), line.rend(), not_space).base(), line.end());
    if (line.empty() || line[0] == '#') continue;
    if (!IsZ85Key(line)) {
      return Status::Error(
          path + " does not hold a CURVE key (40 Z85 characters; make one with pollen keygen)");
    }
    return line;
  }
  return Status::Error(path + " holds no key (make one with pollen keygen)");
}

Status WriteFile(const std::string& path, const std::string& text, mode_t mode, bool overwrite) {
  int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
  int fd = open(path.c_str(), flags, mode);
  if (fd < 0) {
    if (errno == EEXIST) return Status::Error(path + " already exists (use --force to replace it)");
    return Status::Error("cannot write " + path + ": " + std::strerror(errno));
  }
  // An existing file keeps its mode on O_TRUNC: a secret must still end up private.
  if (fchmod(fd, mode) != 0 ||
      write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    std::string error = std::strerror(errno);
    close(fd);
    return Status::Error("cannot write " + path + ": " + error);
  }
  if (close(fd) != 0) return Status::Error("cannot write " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

Result<CurveKeyPair> GenerateKeyPair() {
  char public_key[kZ85KeyChars + 1], secret_key[kZ85KeyChars + 1];
  if (zmq_curve_keypair(public_key, secret_key) != 0) {
    return Status::Error(std::string("cannot make a CURVE key pair: ") + zmq_strerror(zmq_errno()) +
                         " (libzmq built without CURVE?)");
  }
  return CurveKeyPair{public_key, secret_key};
}

Status WriteKeyPair(const std::string& prefix, const CurveKeyPair& keys, bool overwrite) {
  Status s = WriteFile(prefix + ".key",
                       "# Pollen CURVE secret key (Z85). Keep it private; its public half is " +
                           prefix + ".pub\n" + keys.secret_key + "\n",
                       0600, overwrite);
  if (!s.ok()) return s;
  return WriteFile(prefix + ".pub", "# Pollen CURVE public key (Z85)\n" + keys.public_key + "\n",
                   0644, overwrite);
}

Result<std::string> ReadPublicKey(const std::string& path) { return ReadKeyLine(path); }

Result<CurveKeyPair> ReadSecretKey(const std::string& path) {
  auto secret = ReadKeyLine(path);
  if (!secret.ok()) return secret.status();
  char public_key[kZ85KeyChars + 1];
  if (zmq_curve_public(public_key, secret->c_str()) != 0) {
    return Status::Error("cannot derive the public key of " + path + ": " +
                         zmq_strerror(zmq_errno()));
  }
  return CurveKeyPair{public_key, secret.value()};
}

Result<std::map<std::string, std::string>> ReadAuthorizedKeys(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    return Status::Error("cannot read authorised keys directory " + dir + ": " +
                         std::strerror(errno));
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".pub") == 0) names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  std::map<std::string, std::string> keys;
  for (const std::string& name : names) {
    auto key = ReadPublicKey(dir + "/" + name);
    if (!key.ok()) return key.status();
    keys.emplace(key.value(), name.substr(0, name.size() - 4));
  }
  return keys;
}

void WarnIfKeyExposed(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXO | S_IWGRP)) != 0) {
    spdlog::warn("{} can be read by other users: chmod 600 it (or 440 for a group)", path);
  }
}

std::string SecretKeyFile(const std::string& prefix_or_file) {
  const std::string suffix = ".key";
  if (prefix_or_file.size() > suffix.size() &&
      prefix_or_file.compare(prefix_or_file.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return prefix_or_file;
  }
  return prefix_or_file + suffix;
}

}  // namespace pollen::net
