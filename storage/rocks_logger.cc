#include "storage/rocks_logger.h"

#include <spdlog/spdlog.h>

#include <cstdarg>
#include <cstdio>

namespace pollen::storage {
namespace {

class SpdlogRocksLogger : public rocksdb::Logger {
 public:
  explicit SpdlogRocksLogger(std::string path)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL), path_(std::move(path)) {}

  // The options dump at each open: never wanted.
  void LogHeader(const char* format, va_list ap) override {}

  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel() || level == rocksdb::InfoLogLevel::HEADER_LEVEL) return;
    char line[1024];
    va_list copy;
    va_copy(copy, ap);
    std::vsnprintf(line, sizeof(line), format, copy);
    va_end(copy);
    // spdlog may throw on a bad pattern or a full disk; RocksDB must never see an exception.
    try {
      // RocksDB's warnings are mostly write stalls under bulk loads ("Stopping writes
      // because we have 2 immutable memtables"): normal, and noise on a fuzzer's terminal.
      if (level >= rocksdb::InfoLogLevel::ERROR_LEVEL) {
        spdlog::error("rocksdb ({}): {}", path_, line);
      } else {
        spdlog::debug("rocksdb ({}): {}", path_, line);
      }
    } catch (...) {
    }
  }

 private:
  const std::string path_;
};

}  // namespace

std::shared_ptr<rocksdb::Logger> NewRocksLogger(const std::string& path) {
  return std::make_shared<SpdlogRocksLogger>(path);
}

}  // namespace pollen::storage
