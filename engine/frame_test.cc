#include "engine/frame.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "schema/worker.capnp.h"

namespace pollen::engine {
namespace {

using ::testing::HasSubstr;

constexpr size_t kLimit = 1024;  // words: generous for every message built here

// A FuzzRequest with distinct values in every field.
void BuildFuzz(capnp::MallocMessageBuilder& message, uint64_t rng_state) {
  auto fuzz = message.initRoot<schema::ToWorker>().initFuzz();
  fuzz.setRngState(rng_state);
  fuzz.setRngInc(0x1234567890abcdefULL);
  fuzz.setDurationMs(250);
  fuzz.setMaxRuns(1000000);
}

// A Hello with distinct values in every field.
void BuildHello(capnp::MallocMessageBuilder& message) {
  auto hello = message.initRoot<schema::FromWorker>().initHello();
  hello.setProtocolVersion(schema::WORKER_PROTOCOL_VERSION);
  hello.setPid(4242);
  hello.setNumCounters(123456789012ULL);
  hello.setNumModules(3);
  hello.setNumPcs(77);
  hello.setMutatorTable(0x0123456789abcdefULL);
}

// A WorkerConfig with a dictionary: a message with pointers and lists.
void BuildConfig(capnp::MallocMessageBuilder& message) {
  auto config = message.initRoot<schema::ToWorker>().initConfigure();
  config.setMaxLen(4096);
  auto dict = config.initDictionary(3);
  static const char* kEntries[] = {"GET ", "\xff\x00\x01", "a-much-longer-dictionary-entry"};
  for (unsigned i = 0; i < 3; i++) {
    size_t n = i == 1 ? 3 : std::strlen(kEntries[i]);
    dict.set(i, capnp::Data::Reader(reinterpret_cast<const kj::byte*>(kEntries[i]), n));
  }
}

void ExpectFuzz(const FrameWords& words, uint64_t rng_state) {
  capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
  auto root = reader.getRoot<schema::ToWorker>();
  ASSERT_TRUE(root.isFuzz());
  auto fuzz = root.getFuzz();
  EXPECT_EQ(fuzz.getRngState(), rng_state);
  EXPECT_EQ(fuzz.getRngInc(), 0x1234567890abcdefULL);
  EXPECT_EQ(fuzz.getDurationMs(), 250u);
  EXPECT_EQ(fuzz.getMaxRuns(), 1000000u);
}

void ExpectHello(const FrameWords& words) {
  capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
  auto root = reader.getRoot<schema::FromWorker>();
  ASSERT_TRUE(root.isHello());
  auto hello = root.getHello();
  EXPECT_EQ(hello.getProtocolVersion(), schema::WORKER_PROTOCOL_VERSION);
  EXPECT_EQ(hello.getPid(), 4242);
  EXPECT_EQ(hello.getNumCounters(), 123456789012ULL);
  EXPECT_EQ(hello.getNumModules(), 3u);
  EXPECT_EQ(hello.getNumPcs(), 77u);
  EXPECT_EQ(hello.getMutatorTable(), 0x0123456789abcdefULL);
}

void ExpectConfig(const FrameWords& words) {
  capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
  auto root = reader.getRoot<schema::ToWorker>();
  ASSERT_TRUE(root.isConfigure());
  auto config = root.getConfigure();
  EXPECT_EQ(config.getMaxLen(), 4096u);
  std::vector<std::string> entries;
  for (auto entry : config.getDictionary()) {
    entries.emplace_back(reinterpret_cast<const char*>(entry.begin()), entry.size());
  }
  EXPECT_EQ(entries, (std::vector<std::string>{"GET ", std::string("\xff\x00\x01", 3),
                                               "a-much-longer-dictionary-entry"}));
}

// A frame header announcing `words` words.
std::vector<uint8_t> Header(uint32_t words) {
  return {static_cast<uint8_t>(words), static_cast<uint8_t>(words >> 8),
          static_cast<uint8_t>(words >> 16), static_cast<uint8_t>(words >> 24)};
}

TEST(FrameTest, EncodeFrameWritesLittleEndianWordCountThenFlatArray) {
  capnp::MallocMessageBuilder message;
  BuildHello(message);
  std::vector<uint8_t> frame = EncodeFrame(message);
  kj::Array<capnp::word> flat = capnp::messageToFlatArray(message);
  ASSERT_EQ(frame.size(), 4 + flat.size() * sizeof(capnp::word));
  EXPECT_EQ(std::vector<uint8_t>(frame.begin(), frame.begin() + 4),
            Header(static_cast<uint32_t>(flat.size())));
  EXPECT_EQ(std::memcmp(frame.data() + 4, flat.begin(), flat.size() * sizeof(capnp::word)), 0);
}

TEST(FrameTest, RoundTripsOneMessage) {
  capnp::MallocMessageBuilder message;
  BuildConfig(message);
  std::vector<uint8_t> frame = EncodeFrame(message);

  FrameDecoder decoder(kLimit);
  decoder.Append(frame.data(), frame.size());
  FrameWords words;
  std::string error;
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  EXPECT_EQ(words.size() * sizeof(uint64_t), frame.size() - 4);
  ExpectConfig(words);
  EXPECT_EQ(decoder.buffered(), 0u);
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kNeedMore);
}

TEST(FrameTest, DecodesFrameFedOneByteAtATime) {
  capnp::MallocMessageBuilder message;
  BuildFuzz(message, 99);
  std::vector<uint8_t> frame = EncodeFrame(message);

  FrameDecoder decoder(kLimit);
  FrameWords words;
  std::string error;
  for (size_t i = 0; i + 1 < frame.size(); i++) {
    decoder.Append(&frame[i], 1);
    ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kNeedMore) << "after byte " << i;
    EXPECT_EQ(decoder.buffered(), i + 1);
  }
  decoder.Append(&frame.back(), 1);
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  ExpectFuzz(words, 99);
}

TEST(FrameTest, DecodesSeveralFramesFromOneBuffer) {
  std::vector<uint8_t> stream;
  {
    capnp::MallocMessageBuilder a;
    BuildFuzz(a, 1);
    capnp::MallocMessageBuilder b;
    BuildHello(b);
    capnp::MallocMessageBuilder c;
    BuildConfig(c);
    for (capnp::MessageBuilder* m :
         {static_cast<capnp::MessageBuilder*>(&a), static_cast<capnp::MessageBuilder*>(&b),
          static_cast<capnp::MessageBuilder*>(&c)}) {
      std::vector<uint8_t> frame = EncodeFrame(*m);
      stream.insert(stream.end(), frame.begin(), frame.end());
    }
  }
  // Half of a fourth frame's header: must stay buffered, not be mistaken for a frame.
  stream.push_back(0x02);
  stream.push_back(0x00);

  FrameDecoder decoder(kLimit);
  decoder.Append(stream.data(), stream.size());
  FrameWords words;
  std::string error;
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  ExpectFuzz(words, 1);
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  ExpectHello(words);
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  ExpectConfig(words);
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kNeedMore);
  EXPECT_EQ(decoder.buffered(), 2u);
}

TEST(FrameTest, ManyFramesAcrossCompactionKeepTheirOrder) {
  // Enough frames that the decoder compacts its buffer (after 64 KiB consumed) mid-stream.
  FrameDecoder decoder(kLimit);
  FrameWords words;
  std::string error;
  uint64_t next_expected = 0;
  for (uint64_t i = 0; i < 5000; i++) {
    capnp::MallocMessageBuilder message;
    BuildFuzz(message, i);
    std::vector<uint8_t> frame = EncodeFrame(message);
    // Feed in two uneven pieces, popping in between, so partial frames straddle compactions.
    size_t cut = 1 + i % (frame.size() - 1);
    decoder.Append(frame.data(), cut);
    while (decoder.Pop(&words, &error) == FrameDecoder::Next::kFrame)
      ExpectFuzz(words, next_expected++);
    decoder.Append(frame.data() + cut, frame.size() - cut);
    while (decoder.Pop(&words, &error) == FrameDecoder::Next::kFrame)
      ExpectFuzz(words, next_expected++);
    ASSERT_FALSE(testing::Test::HasFailure()) << "frame " << i;
  }
  EXPECT_EQ(next_expected, 5000u);
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(FrameTest, FrameOverTheLimitIsAnErrorAndTheDecoderStaysBroken) {
  FrameDecoder decoder(16);
  std::vector<uint8_t> header = Header(17);
  decoder.Append(header.data(), header.size());  // the body never comes: no allocation waits
  FrameWords words;
  std::string error;
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kError);
  EXPECT_THAT(error, HasSubstr("17 words"));
  EXPECT_THAT(error, HasSubstr("limit 16"));
  EXPECT_TRUE(words.empty());

  // A valid frame after the bad one is not decoded: the stream has lost its framing.
  capnp::MallocMessageBuilder message;
  BuildHello(message);
  std::vector<uint8_t> frame = EncodeFrame(message);
  decoder.Append(frame.data(), frame.size());
  error.clear();
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kError);
  EXPECT_EQ(error, "stream already broken");
}

TEST(FrameTest, HugeAnnouncedFrameIsRejectedWithoutAllocating) {
  FrameDecoder decoder(kLimit);
  std::vector<uint8_t> header = Header(0xffffffffu);
  decoder.Append(header.data(), header.size());
  FrameWords words;
  std::string error;
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kError);
  EXPECT_THAT(error, HasSubstr("4294967295 words"));
  EXPECT_EQ(words.capacity(), 0u);
}

TEST(FrameTest, FrameExactlyAtTheLimitIsAccepted) {
  capnp::MallocMessageBuilder message;
  BuildHello(message);
  std::vector<uint8_t> frame = EncodeFrame(message);
  size_t words_in_frame = (frame.size() - 4) / sizeof(uint64_t);
  FrameDecoder decoder(words_in_frame);
  decoder.Append(frame.data(), frame.size());
  FrameWords words;
  std::string error;
  ASSERT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kFrame) << error;
  ExpectHello(words);
}

TEST(FrameTest, ZeroSizeFrameIsAnError) {
  FrameDecoder decoder(kLimit);
  std::vector<uint8_t> header = Header(0);
  decoder.Append(header.data(), header.size());
  FrameWords words;
  std::string error;
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kError);
  EXPECT_THAT(error, HasSubstr("frame of 0 words"));
  EXPECT_EQ(decoder.Pop(&words, &error), FrameDecoder::Next::kError);
}

// Pipe ends that close themselves.
class Pipe {
 public:
  Pipe() { EXPECT_EQ(pipe2(fds_, O_CLOEXEC), 0); }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  int read_fd() const { return fds_[0]; }
  int write_fd() const { return fds_[1]; }
  void CloseRead() {
    if (fds_[0] >= 0) close(fds_[0]);
    fds_[0] = -1;
  }
  void CloseWrite() {
    if (fds_[1] >= 0) close(fds_[1]);
    fds_[1] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

TEST(FrameTest, WriteFrameThenReadFrameOverAPipe) {
  Pipe pipe;
  capnp::MallocMessageBuilder a;
  BuildConfig(a);
  capnp::MallocMessageBuilder b;
  BuildHello(b);
  ASSERT_TRUE(WriteFrame(pipe.write_fd(), a).ok());
  ASSERT_TRUE(WriteFrame(pipe.write_fd(), b).ok());

  FrameDecoder decoder(kLimit);
  FrameWords words;
  Status st = ReadFrame(pipe.read_fd(), decoder, &words);
  ASSERT_TRUE(st.ok()) << st.message();
  ExpectConfig(words);
  // The second frame arrived in the same read: it comes from the decoder's buffer.
  st = ReadFrame(pipe.read_fd(), decoder, &words);
  ASSERT_TRUE(st.ok()) << st.message();
  ExpectHello(words);
}

TEST(FrameTest, ReadFrameOnAClosedPipeSaysClosed) {
  Pipe pipe;
  pipe.CloseWrite();
  FrameDecoder decoder(kLimit);
  FrameWords words;
  Status st = ReadFrame(pipe.read_fd(), decoder, &words);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "closed");
}

TEST(FrameTest, ReadFrameOnAPipeClosedMidFrameSaysClosed) {
  Pipe pipe;
  capnp::MallocMessageBuilder message;
  BuildHello(message);
  std::vector<uint8_t> frame = EncodeFrame(message);
  ASSERT_EQ(write(pipe.write_fd(), frame.data(), frame.size() - 3),
            static_cast<ssize_t>(frame.size() - 3));
  pipe.CloseWrite();
  FrameDecoder decoder(kLimit);
  FrameWords words;
  Status st = ReadFrame(pipe.read_fd(), decoder, &words);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "closed");
}

TEST(FrameTest, ReadFrameReportsABrokenStream) {
  Pipe pipe;
  std::vector<uint8_t> header = Header(kLimit + 1);
  ASSERT_EQ(write(pipe.write_fd(), header.data(), header.size()), 4);
  FrameDecoder decoder(kLimit);
  FrameWords words;
  Status st = ReadFrame(pipe.read_fd(), decoder, &words);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("limit 1024"));
}

TEST(FrameTest, WriteFrameToAClosedPipeIsAnError) {
  Pipe pipe;
  pipe.CloseRead();
  capnp::MallocMessageBuilder message;
  BuildHello(message);
  // Without this the write would raise SIGPIPE and kill the test.
  sighandler_t old = signal(SIGPIPE, SIG_IGN);
  Status st = WriteFrame(pipe.write_fd(), message);
  signal(SIGPIPE, old);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("write:"));
}

volatile uint64_t g_sink = 0;

// Reads a frame as both message types, touching every field: what a peer does with frames
// it cannot trust. Returns false when Cap'n Proto rejected the frame.
bool TouchEverything(const FrameWords& words) {
  try {
    capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
    auto to = reader.getRoot<schema::ToWorker>();
    uint64_t sink = 0;
    switch (to.which()) {
      case schema::ToWorker::CONFIGURE:
        sink += to.getConfigure().getMaxLen();
        for (auto entry : to.getConfigure().getDictionary()) {
          for (uint8_t byte : entry) sink += byte;
        }
        break;
      case schema::ToWorker::FUZZ:
        sink += to.getFuzz().getRngState() + to.getFuzz().getMaxRuns();
        break;
      case schema::ToWorker::MINIMIZE:
        sink += to.getMinimize().getFeatureCount();
        break;
      default:
        break;
    }
    capnp::FlatArrayMessageReader reader2(AsWords(words), FrameReaderOptions());
    auto from = reader2.getRoot<schema::FromWorker>();
    if (from.isHello()) sink += from.getHello().getNumCounters();
    if (from.isFuzzDone()) sink += from.getFuzzDone().getRuns();
    g_sink = sink;  // keeps the reads from being optimized away
    return true;
  } catch (const kj::Exception&) {
    return false;
  }
}

TEST(FrameTest, RandomGarbageNeverCrashesTheDecoderOrTheReader) {
  Rng rng(12345, 678);
  size_t frames = 0;
  size_t errors = 0;
  for (int round = 0; round < 2000; round++) {
    FrameDecoder decoder(64);
    std::vector<uint8_t> garbage(rng.Below(600));
    for (auto& b : garbage) b = static_cast<uint8_t>(rng.Next());
    // Small announced sizes are common in real garbage; force some so frames come out.
    if (garbage.size() >= 4 && rng.Below(2) == 0) {
      garbage[0] = static_cast<uint8_t>(1 + rng.Below(63));
      garbage[1] = garbage[2] = garbage[3] = 0;
    }
    size_t pos = 0;
    FrameWords words;
    std::string error;
    bool broken = false;
    while (pos < garbage.size() && !broken) {
      size_t piece = std::min<size_t>(garbage.size() - pos, 1 + rng.Below(40));
      decoder.Append(garbage.data() + pos, piece);
      pos += piece;
      while (true) {
        FrameDecoder::Next next = decoder.Pop(&words, &error);
        if (next == FrameDecoder::Next::kNeedMore) break;
        if (next == FrameDecoder::Next::kError) {
          broken = true;
          errors++;
          break;
        }
        frames++;
        ASSERT_FALSE(words.empty());
        ASSERT_LE(words.size(), 64u);
        TouchEverything(words);
      }
    }
  }
  // The garbage exercised both outcomes: otherwise this test checks nothing.
  EXPECT_GT(frames, 100u);
  EXPECT_GT(errors, 100u);
}

}  // namespace
}  // namespace pollen::engine
