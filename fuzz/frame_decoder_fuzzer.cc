// Fuzzes engine/frame.h's FrameDecoder and the reading of the frames it yields, as the
// coordinator and a worker read their control pipes.
//
// Input: byte 0 picks how the rest is cut into the pieces the decoder receives (as partial
// reads from a pipe would cut it); the rest is the byte stream. Checks, beyond "no crash
// under ASan/UBSan":
//   - every frame is 1..kMaxFrameWords words and holds exactly the stream's bytes after its
//     header;
//   - frames + buffered bytes account for every byte appended;
//   - after an error the decoder stays broken.
// Every frame is then read as a ToWorker and as a FromWorker with FrameReaderOptions(),
// touching every field; Cap'n Proto may reject it (kj::Exception), never crash.
#include <capnp/serialize.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/frame.h"
#include "schema/worker.capnp.h"

namespace {

using pollen::engine::AsWords;
using pollen::engine::FrameDecoder;
using pollen::engine::FrameReaderOptions;
using pollen::engine::FrameWords;
namespace schema = pollen::schema;

// Small enough that the fuzzer reaches the limit easily, large enough for real messages.
constexpr size_t kMaxFrameWords = 512;

volatile uint64_t g_sink;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "frame_decoder_fuzzer: %s\n", what);
  std::abort();
}

uint64_t TouchToWorker(schema::ToWorker::Reader root) {
  uint64_t sum = 0;
  switch (root.which()) {
    case schema::ToWorker::CONFIGURE: {
      auto config = root.getConfigure();
      sum += config.getMaxLen();
      for (capnp::Data::Reader entry : config.getDictionary()) {
        sum += entry.size();
        for (uint8_t byte : entry) sum += byte;
      }
      break;
    }
    case schema::ToWorker::FUZZ: {
      auto fuzz = root.getFuzz();
      sum += fuzz.getRngState() + fuzz.getRngInc() + fuzz.getDurationMs() + fuzz.getMaxRuns();
      break;
    }
    case schema::ToWorker::EXECUTE:
      root.getExecute().getUnused();
      sum += 1;
      break;
    case schema::ToWorker::MINIMIZE: {
      auto minimize = root.getMinimize();
      sum += minimize.getFeatureCount() + minimize.getMaxRuns();
      break;
    }
    case schema::ToWorker::SHUTDOWN:
      root.getShutdown();
      sum += 2;
      break;
    default:  // a union tag from a newer schema
      sum += 3;
      break;
  }
  return sum;
}

uint64_t TouchFromWorker(schema::FromWorker::Reader root) {
  uint64_t sum = 0;
  switch (root.which()) {
    case schema::FromWorker::HELLO: {
      auto hello = root.getHello();
      sum += hello.getProtocolVersion() + static_cast<uint32_t>(hello.getPid()) +
             hello.getNumCounters() + hello.getNumModules() + hello.getNumPcs();
      break;
    }
    case schema::FromWorker::FUZZ_DONE: {
      auto done = root.getFuzzDone();
      sum += done.getRuns() + done.getFound() + done.getInputSize() + done.getFeatureCount();
      break;
    }
    case schema::FromWorker::EXECUTED: {
      auto executed = root.getExecuted();
      sum += executed.getFeatureCount() + executed.getExecTimeUs();
      break;
    }
    case schema::FromWorker::MINIMIZED: {
      auto minimized = root.getMinimized();
      sum += minimized.getRuns() + minimized.getInputSize() + minimized.getFeatureCount();
      break;
    }
    default:
      sum += 3;
      break;
  }
  return sum;
}

void ReadAsBothTypes(const FrameWords& words) {
  // Each read gets its own reader: the traversal limit is per reader, and a peer reads a
  // frame as one type only.
  try {
    capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
    g_sink = g_sink + TouchToWorker(reader.getRoot<schema::ToWorker>());
  } catch (const kj::Exception&) {
  }
  try {
    capnp::FlatArrayMessageReader reader(AsWords(words), FrameReaderOptions());
    g_sink = g_sink + TouchFromWorker(reader.getRoot<schema::FromWorker>());
  } catch (const kj::Exception&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // Piece sizes from a tiny LCG seeded by byte 0: 1..max_piece bytes each.
  uint32_t state = data[0];
  const size_t max_piece = 1 + (data[0] & 0x3f);
  const uint8_t* stream = data + 1;
  const size_t stream_size = size - 1;

  FrameDecoder decoder(kMaxFrameWords);
  FrameWords words;
  std::string error;
  size_t appended = 0;
  size_t decoded = 0;  // stream bytes consumed by frames, headers included
  bool broken = false;
  while (appended < stream_size && !broken) {
    state = state * 1103515245u + 12345u;
    size_t piece = 1 + (state >> 16) % max_piece;
    if (piece > stream_size - appended) piece = stream_size - appended;
    decoder.Append(stream + appended, piece);
    appended += piece;
    while (true) {
      FrameDecoder::Next next = decoder.Pop(&words, &error);
      if (next == FrameDecoder::Next::kNeedMore) break;
      if (next == FrameDecoder::Next::kError) {
        if (error.empty()) Fail("kError without a message");
        broken = true;
        break;
      }
      if (words.empty() || words.size() > kMaxFrameWords) Fail("frame size out of bounds");
      const size_t bytes = words.size() * sizeof(uint64_t);
      if (decoded + 4 + bytes > appended) Fail("frame longer than the bytes appended");
      if (std::memcmp(words.data(), stream + decoded + 4, bytes) != 0) {
        Fail("frame bytes differ from the stream");
      }
      decoded += 4 + bytes;
      ReadAsBothTypes(words);
    }
    if (!broken && decoded + decoder.buffered() != appended) Fail("bytes lost or invented");
  }
  if (broken) {
    // Broken for good, even with more bytes.
    static const uint8_t kValidHeader[4] = {1, 0, 0, 0};
    decoder.Append(kValidHeader, sizeof(kValidHeader));
    error.clear();
    if (decoder.Pop(&words, &error) != FrameDecoder::Next::kError || error.empty()) {
      Fail("decoder recovered after an error");
    }
  }
  return 0;
}
