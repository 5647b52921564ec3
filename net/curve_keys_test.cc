#include "net/curve_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/test_util.h"

namespace pollen::net {
namespace {

using ::pollen::testing::MakeTempDir;
using ::pollen::testing::ReadFile;
using ::pollen::testing::WriteFile;
using ::testing::HasSubstr;

TEST(CurveKeysTest, WrittenPairReadsBack) {
  std::string dir = MakeTempDir();
  auto keys = GenerateKeyPair();
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_EQ(keys->public_key.size(), 40u);
  ASSERT_TRUE(WriteKeyPair(dir + "/node", *keys, false).ok());
  auto secret = ReadSecretKey(dir + "/node.key");
  ASSERT_TRUE(secret.ok()) << secret.status().message();
  EXPECT_EQ(secret->secret_key, keys->secret_key);
  EXPECT_EQ(secret->public_key, keys->public_key);  // derived from the secret
  auto pub = ReadPublicKey(dir + "/node.pub");
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(*pub, keys->public_key);
  struct stat st;
  ASSERT_EQ(stat((dir + "/node.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(CurveKeysTest, ExistingFilesAreKeptUnlessOverwriting) {
  std::string dir = MakeTempDir();
  auto first = GenerateKeyPair(), second = GenerateKeyPair();
  ASSERT_TRUE(WriteKeyPair(dir + "/k", *first, false).ok());
  Status again = WriteKeyPair(dir + "/k", *second, false);
  EXPECT_THAT(again.message(), HasSubstr("already exists"));
  EXPECT_EQ(ReadSecretKey(dir + "/k.key")->secret_key, first->secret_key);
  chmod((dir + "/k.key").c_str(), 0644);
  ASSERT_TRUE(WriteKeyPair(dir + "/k", *second, true).ok());
  EXPECT_EQ(ReadSecretKey(dir + "/k.key")->secret_key, second->secret_key);
  struct stat st;
  ASSERT_EQ(stat((dir + "/k.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // private again
}

TEST(CurveKeysTest, BadKeyFilesAreClearErrors) {
  std::string dir = MakeTempDir();
  EXPECT_THAT(ReadPublicKey(dir + "/missing.pub").status().message(),
              HasSubstr("cannot read key file"));
  WriteFile(dir + "/short.pub", "# comment\nabc\n");
  EXPECT_THAT(ReadPublicKey(dir + "/short.pub").status().message(),
              HasSubstr("does not hold a CURVE key"));
  WriteFile(dir + "/empty.pub", "# only a comment\n\n");
  EXPECT_THAT(ReadPublicKey(dir + "/empty.pub").status().message(), HasSubstr("holds no key"));
  WriteFile(dir + "/notz85.pub", std::string(40, '"') + "\n");
  EXPECT_THAT(ReadPublicKey(dir + "/notz85.pub").status().message(),
              HasSubstr("does not hold a CURVE key"));
}

TEST(CurveKeysTest, AuthorizedDirectoryMapsKeysToNames) {
  std::string dir = MakeTempDir();
  auto a = GenerateKeyPair(), b = GenerateKeyPair();
  ASSERT_TRUE(WriteKeyPair(dir + "/node-a", *a, false).ok());
  ASSERT_TRUE(WriteKeyPair(dir + "/node-b", *b, false).ok());
  auto keys = ReadAuthorizedKeys(dir);  // the .key files are ignored
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_EQ(keys->size(), 2u);
  EXPECT_EQ(keys->at(a->public_key), "node-a");
  EXPECT_EQ(keys->at(b->public_key), "node-b");
  WriteFile(dir + "/broken.pub", "nonsense\n");
  EXPECT_THAT(ReadAuthorizedKeys(dir).status().message(), HasSubstr("broken.pub"));
  EXPECT_THAT(ReadAuthorizedKeys(dir + "/absent").status().message(),
              HasSubstr("cannot read authorised keys directory"));
}

TEST(CurveKeysTest, AKeyFlagNamesAPrefixOrTheKeyFileItself) {
  EXPECT_EQ(SecretKeyFile("keys/node"), "keys/node.key");
  EXPECT_EQ(SecretKeyFile("/keys/operator.key"), "/keys/operator.key");  // the manifests' form
  EXPECT_EQ(SecretKeyFile("keys/node.pub"), "keys/node.pub.key");
  EXPECT_EQ(SecretKeyFile(".key"), ".key.key");  // a prefix that is only the suffix
}

}  // namespace
}  // namespace pollen::net
