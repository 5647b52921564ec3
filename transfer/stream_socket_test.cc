// Streams over real ZeroMQ sockets: tcp loopback and inproc, plain and CURVE, both ends
// binding, peers that fail or lie, and a 10,000-file directory transfer resumed half way.
#include "transfer/stream_socket.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "net/curve_keys.h"
#include "net/zap_handler.h"
#include "transfer/directory_records.h"
#include "transfer/transfer_test_util.h"

namespace pollen::transfer {
namespace {

namespace fs = std::filesystem;
using testing::MakeRecords;
using testing::MemorySink;
using testing::Record;
using testing::TempDir;
using testing::VectorSource;

constexpr int kTimeoutMs = 20000;  // generous: the machine may be busy; failures end sooner

std::string UniqueInproc() {
  static std::atomic<int> counter{0};
  return "inproc://transfer-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

SourceOpener Serve(const std::vector<Record>& records) {
  return [records](const StreamOpen& open) -> Result<std::unique_ptr<RecordSource>> {
    return std::unique_ptr<RecordSource>(new VectorSource(records, open.resume_after));
  };
}

StreamSocketOptions Options(int timeout_ms = kTimeoutMs) {
  StreamSocketOptions options;
  options.idle_timeout_ms = timeout_ms;
  options.chunk_bytes = 64 << 10;
  options.window = 4;
  return options;
}

// Two connected DEALER sockets, each in its own context (as in two processes) except for
// inproc, which needs one.
struct SocketPair {
  zmq::context_t server_context;
  zmq::context_t client_context;
  std::unique_ptr<net::ZapHandler> zap;
  zmq::socket_t server;
  zmq::socket_t client;
  net::CurveKeyPair client_keys;

  enum class Mode { kPlainTcp, kInproc, kCurveTcp, kCurveUnauthorised };

  explicit SocketPair(Mode mode, const StreamSocketOptions& options, const std::string& keys_dir)
      : server(server_context, zmq::socket_type::dealer),
        client(mode == Mode::kInproc ? server_context : client_context, zmq::socket_type::dealer) {
    EXPECT_TRUE(SetStreamSocketOptions(server, options).ok());
    EXPECT_TRUE(SetStreamSocketOptions(client, options).ok());
    if (mode == Mode::kCurveTcp || mode == Mode::kCurveUnauthorised) {
      const net::CurveKeyPair server_keys = net::GenerateKeyPair().value();
      client_keys = net::GenerateKeyPair().value();
      const std::string authorized = keys_dir + "/authorized";
      mkdir(authorized.c_str(), 0755);
      if (mode == Mode::kCurveTcp) {
        EXPECT_TRUE(net::WriteKeyPair(authorized + "/client", client_keys, false).ok());
      }
      zap = net::ZapHandler::Start(server_context, authorized).value();
      EXPECT_TRUE(SetCurveServer(server, server_keys.secret_key).ok());
      EXPECT_TRUE(SetCurveClient(client, client_keys, server_keys.public_key).ok());
    }
    const std::string endpoint = mode == Mode::kInproc ? UniqueInproc() : "tcp://127.0.0.1:*";
    server.bind(endpoint);
    client.connect(server.get(zmq::sockopt::last_endpoint));
  }

  StreamSocketOptions ServerOptions(StreamSocketOptions options) const {
    options.zap = zap.get();
    return options;
  }
};

struct Outcome {
  std::optional<Result<TransferCounters>> sent;
  std::optional<Result<TransferCounters>> received;
};

// Runs the sending end on a thread and the receiving end on this one; both calls are
// bounded by their idle timeouts.
Outcome RunStream(zmq::socket_t& sender_socket, const StreamSocketOptions& sender_options,
                  const SourceOpener& opener, zmq::socket_t& receiver_socket,
                  const StreamSocketOptions& receiver_options, const StreamOpen& open,
                  RecordSink* sink) {
  Outcome outcome;
  std::thread sender([&] { outcome.sent = SendStream(sender_socket, opener, sender_options); });
  outcome.received = ReceiveStream(receiver_socket, open, sink, receiver_options);
  sender.join();
  return outcome;
}

class TransferSocketTest : public ::testing::TestWithParam<SocketPair::Mode> {};

TEST_P(TransferSocketTest, RecordsStreamBothWays) {
  const std::vector<Record> records = MakeRecords(120, 0, 200 << 10, 21);
  for (bool receiver_binds : {true, false}) {
    TempDir keys;
    StreamSocketOptions options = Options();
    SocketPair pair(GetParam(), options, keys.path());
    zmq::socket_t& receiver = receiver_binds ? pair.server : pair.client;
    zmq::socket_t& sender = receiver_binds ? pair.client : pair.server;
    const StreamSocketOptions receiver_options =
        receiver_binds ? pair.ServerOptions(options) : options;
    const StreamSocketOptions sender_options =
        receiver_binds ? options : pair.ServerOptions(options);
    MemorySink sink;
    Outcome out = RunStream(sender, sender_options, Serve(records), receiver, receiver_options,
                            StreamOpen{77, "corpus", "", 0}, &sink);
    ASSERT_TRUE(out.received->ok()) << out.received->status().message();
    ASSERT_TRUE(out.sent->ok()) << out.sent->status().message();
    EXPECT_EQ(sink.records, records);
    EXPECT_EQ((*out.sent)->records, records.size());
    EXPECT_EQ((*out.received)->record_bytes, (*out.sent)->record_bytes);
    EXPECT_EQ((*out.received)->chunks, (*out.sent)->chunks);
    EXPECT_GT((*out.sent)->chunks, options.window);  // credit was granted back
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, TransferSocketTest,
                         ::testing::Values(SocketPair::Mode::kPlainTcp, SocketPair::Mode::kInproc,
                                           SocketPair::Mode::kCurveTcp),
                         [](const auto& info) {
                           switch (info.param) {
                             case SocketPair::Mode::kPlainTcp:
                               return "PlainTcp";
                             case SocketPair::Mode::kInproc:
                               return "Inproc";
                             default:
                               return "CurveTcp";
                           }
                         });

TEST(TransferSocketErrorsTest, AnUnauthorisedKeyGetsNothingAndBothEndsTimeOut) {
  TempDir keys;
  const StreamSocketOptions options = Options(1500);
  SocketPair pair(SocketPair::Mode::kCurveUnauthorised, options, keys.path());
  MemorySink sink;
  Outcome out = RunStream(pair.client, options, Serve(MakeRecords(3, 1, 1)), pair.server,
                          pair.ServerOptions(options), StreamOpen{1, "corpus", "", 0}, &sink);
  ASSERT_FALSE(out.sent->ok());
  ASSERT_FALSE(out.received->ok());
  EXPECT_NE(out.sent->status().message().find("no stream open from the peer within 1500 ms"),
            std::string::npos)
      << out.sent->status().message();
  EXPECT_NE(out.received->status().message().find("from the peer within 1500 ms"),
            std::string::npos)
      << out.received->status().message();
  EXPECT_TRUE(sink.records.empty());
  EXPECT_GT(pair.zap->refused(), 0u);
}

TEST(TransferSocketErrorsTest, TheSendersErrorReachesTheReceiver) {
  TempDir keys;
  const StreamSocketOptions options = Options();
  SocketPair pair(SocketPair::Mode::kPlainTcp, options, keys.path());
  MemorySink sink;
  const std::vector<Record> records = {{"a", "1"}, {"../../etc/passwd", "x"}};
  Outcome out = RunStream(pair.client, options, Serve(records), pair.server, options,
                          StreamOpen{1, "corpus", "", 0}, &sink);
  ASSERT_FALSE(out.sent->ok());
  EXPECT_NE(out.sent->status().message().find("record 2 to send: invalid record name"),
            std::string::npos);
  ASSERT_FALSE(out.received->ok());
  EXPECT_EQ(out.received->status().message(),
            "the sender stopped the stream: " + out.sent->status().message());
}

TEST(TransferSocketErrorsTest, TheReceiversErrorReachesTheSender) {
  TempDir keys;
  const StreamSocketOptions options = Options();
  SocketPair pair(SocketPair::Mode::kPlainTcp, options, keys.path());
  MemorySink sink(3);
  Outcome out = RunStream(pair.client, options, Serve(MakeRecords(100, 1000, 1000)), pair.server,
                          options, StreamOpen{1, "corpus", "", 0}, &sink);
  ASSERT_FALSE(out.received->ok());
  EXPECT_EQ(out.received->status().message(), "record 4 \"rec-000003\": disk full (test)");
  ASSERT_FALSE(out.sent->ok());
  EXPECT_EQ(out.sent->status().message(),
            "the receiver stopped the stream: record 4 \"rec-000003\": disk full (test)");
  EXPECT_EQ(sink.records.size(), 3u);
}

TEST(TransferSocketErrorsTest, AnOpenerErrorReachesTheReceiver) {
  TempDir keys;
  const StreamSocketOptions options = Options();
  SocketPair pair(SocketPair::Mode::kPlainTcp, options, keys.path());
  MemorySink sink;
  SourceOpener refuse = [](const StreamOpen& open) -> Result<std::unique_ptr<RecordSource>> {
    return Status::Error("no such resource: " + open.resource);
  };
  Outcome out = RunStream(pair.client, options, refuse, pair.server, options,
                          StreamOpen{1, "crashes", "", 0}, &sink);
  ASSERT_FALSE(out.received->ok());
  EXPECT_EQ(out.received->status().message(),
            "the sender stopped the stream: no such resource: crashes");
}

TEST(TransferSocketErrorsTest, GarbageFromThePeerIsAnErrorNotACrash) {
  TempDir keys;
  const StreamSocketOptions options = Options(5000);
  SocketPair pair(SocketPair::Mode::kPlainTcp, options, keys.path());
  MemorySink sink;
  pair.client.set(zmq::sockopt::rcvtimeo, 5000);
  std::thread hostile([&] {
    zmq::message_t open;
    if (pair.client.recv(open)) pair.client.send(zmq::str_buffer("not a capnp message!!!!!"));
  });
  Result<TransferCounters> got =
      ReceiveStream(pair.server, StreamOpen{1, "corpus", "", 0}, &sink, options);
  hostile.join();
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("malformed stream message"), std::string::npos)
      << got.status().message();
}

// A sink that stops after `fail_after` commits, as a pull interrupted by a dropped
// connection or Ctrl-C would.
class InterruptedSink : public RecordSink {
 public:
  InterruptedSink(RecordSink* sink, size_t fail_after) : sink_(sink), fail_after_(fail_after) {}
  Status Commit(std::string_view name, std::string_view data) override {
    if (commits_++ == fail_after_) return Status::Error("interrupted (test)");
    return sink_->Commit(name, data);
  }

 private:
  RecordSink* sink_;
  size_t fail_after_;
  size_t commits_ = 0;
};

TEST(TransferSocketResumeTest, TenThousandFilesInterruptedHalfWayAndResumedGiveTheFullSet) {
  TempDir work;
  const std::string from = work.path() + "/from", to = work.path() + "/to",
                    cursor = work.path() + "/to.cursor";
  fs::create_directory(from);
  const std::vector<Record> records = MakeRecords(10000, 0, 200, 31);
  for (const auto& [name, data] : records) {
    std::ofstream(from + "/" + name, std::ios::binary) << data;
  }

  const auto pull = [&](size_t fail_after) {
    TempDir keys;
    StreamSocketOptions options = Options();
    options.chunk_bytes = 16 << 10;
    SocketPair pair(SocketPair::Mode::kPlainTcp, options, keys.path());
    const std::string resume_after = ReadResumeCursor(cursor).value();
    auto sink = DirectorySink::Open(to, {false, cursor});
    EXPECT_TRUE(sink.ok());
    InterruptedSink interrupted(sink->get(), fail_after);
    SourceOpener opener = [&](const StreamOpen& open) -> Result<std::unique_ptr<RecordSource>> {
      auto source = DirectorySource::Open(from, open.resume_after);
      if (!source.ok()) return source.status();
      return std::unique_ptr<RecordSource>(std::move(source.value()));
    };
    return RunStream(pair.client, options, opener, pair.server, options,
                     StreamOpen{1, "corpus", resume_after, 0}, &interrupted);
  };

  Outcome first = pull(5000);
  ASSERT_FALSE(first.received->ok());
  EXPECT_NE(first.received->status().message().find("record 5001 \"rec-005000\": interrupted"),
            std::string::npos)
      << first.received->status().message();
  const std::string cursor_after_first = ReadResumeCursor(cursor).value();
  EXPECT_EQ(cursor_after_first, "rec-004999");  // flushed when the sink closed

  Outcome second = pull(SIZE_MAX);
  ASSERT_TRUE(second.received->ok()) << second.received->status().message();
  ASSERT_TRUE(second.sent->ok()) << second.sent->status().message();
  EXPECT_EQ((*second.received)->records, 5000u);  // only what was missing was sent again

  std::vector<Record> got;
  for (const auto& e : fs::directory_iterator(to)) {
    std::ifstream in(e.path(), std::ios::binary);
    got.emplace_back(e.path().filename(), std::string(std::istreambuf_iterator<char>(in), {}));
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got.size(), records.size());
  EXPECT_TRUE(got == records);
  EXPECT_EQ(ReadResumeCursor(cursor).value(), "rec-009999");
}

}  // namespace
}  // namespace pollen::transfer
