// The classes RocksDB's errors get (storage/rocks_util.h), on statuses as RocksDB makes them.
#include "storage/rocks_util.h"

#include <gtest/gtest.h>

#include "rocksdb/status.h"

namespace pollen::storage {
namespace {

TEST(RocksCodeTest, EachKindOfFailureGetsTheClassACallerActsOn) {
  EXPECT_EQ(RocksCode(rocksdb::Status::OK()), StatusCode::kOk);
  EXPECT_EQ(RocksCode(rocksdb::Status::Corruption("bad block")), StatusCode::kInvalid);
  EXPECT_EQ(RocksCode(rocksdb::Status::Busy()), StatusCode::kUnavailable);
  EXPECT_EQ(RocksCode(rocksdb::Status::TryAgain()), StatusCode::kUnavailable);
  EXPECT_EQ(RocksCode(rocksdb::Status::TimedOut()), StatusCode::kUnavailable);
  EXPECT_EQ(RocksCode(rocksdb::Status::ShutdownInProgress()), StatusCode::kInterrupted);
  EXPECT_EQ(RocksCode(rocksdb::Status::IOError("While open a file for appending: /x/000007.log",
                                               "No space left on device")),
            StatusCode::kFailed);
  EXPECT_EQ(RocksCode(rocksdb::Status::NotSupported("zstd")), StatusCode::kFailed);
}

TEST(RocksCodeTest, AHeldLockFileIsUnavailableNotAnIoFailure) {
  const rocksdb::Status other = rocksdb::Status::IOError("While lock file: /data/corpus/LOCK",
                                                         "Resource temporarily unavailable");
  EXPECT_TRUE(IsLockHeld(other));
  EXPECT_EQ(RocksCode(other), StatusCode::kUnavailable);
  const rocksdb::Status here = rocksdb::Status::IOError(
      "lock hold by current process, acquire time 1764340000 acquiring thread 1: "
      "/data/corpus/LOCK",
      "No locks available");
  EXPECT_TRUE(IsLockHeld(here));
  EXPECT_FALSE(IsLockHeld(rocksdb::Status::IOError("While reading /data/corpus/000012.sst")));
  // The LOCK file cannot be opened: not a lock another process holds.
  const rocksdb::Status denied = rocksdb::Status::IOError(
      "while open a file for lock: /data/corpus/LOCK", "Permission denied");
  EXPECT_FALSE(IsLockHeld(denied));
  EXPECT_EQ(RocksCode(denied), StatusCode::kFailed);
  const Status s = FromRocks(other, "/data/corpus", "opening");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("store is locked by another pollen process"), std::string::npos)
      << s.message();
}

TEST(RocksCodeTest, CorruptionSaysSoAndIsInvalid) {
  const Status s = FromRocks(rocksdb::Status::Corruption("block checksum mismatch"), "/data/corpus",
                             "reading an entry");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_NE(s.message().find("is corrupted"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("block checksum mismatch"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace pollen::storage
