#include "node/worker_messages.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "engine/mutator.h"
#include "schema/capnp_fields.h"
#include "schema/worker.capnp.h"

namespace pollen::node {

const uint32_t kWorkerProtocolVersion = schema::WORKER_PROTOCOL_VERSION;

Status CheckHelloBuild(const WorkerHello& hello, const std::string& target) {
  if (hello.protocol_version != kWorkerProtocolVersion) {
    return Status::Error("target " + target + " was linked with another pollen runtime (protocol " +
                         std::to_string(hello.protocol_version) + ", expected " +
                         std::to_string(kWorkerProtocolVersion) + "): rebuild it");
  }
  if (hello.mutator_table != engine::Mutator::TableFingerprint()) {
    return Status::Error("target " + target +
                         " was linked with another pollen runtime (its mutators differ from "
                         "this pollen's): rebuild it");
  }
  return Status::Ok();
}

namespace {

Result<FromWorker> Decode(const engine::FrameWords& words) {
  capnp::FlatArrayMessageReader reader(engine::AsWords(words), engine::FrameReaderOptions());
  auto msg = reader.getRoot<schema::FromWorker>();
  switch (msg.which()) {
    case schema::FromWorker::HELLO: {
      auto r = msg.getHello();
      WorkerHello out;
      out.protocol_version = r.getProtocolVersion();
      out.num_counters = r.getNumCounters();
      out.num_modules = r.getNumModules();
      out.num_pcs = r.getNumPcs();
      out.value_profile_first = r.getValueProfileFirst();
      out.value_profile_counters = r.getValueProfileCounters();
      out.mutator_table = r.getMutatorTable();
      return FromWorker(out);
    }
    case schema::FromWorker::FUZZ_DONE: {
      auto r = msg.getFuzzDone();
      FuzzDone out;
      out.runs = r.getRuns();
      out.found = r.getFound();
      out.input_size = r.getInputSize();
      out.feature_count = r.getFeatureCount();
      out.entry_feature_count = r.getEntryFeatureCount();
      out.reduced = r.getReduced();
      out.stage_next = r.getStageNext();
      out.stage_done = r.getStageDone();
      out.stage_runs = r.getStageRuns();
      out.stage_found = r.getStageFound();
      out.hooks_off = r.getHooksOff();
      out.hooks_stuck = r.getHooksStuck();
      return FromWorker(out);
    }
    case schema::FromWorker::EXECUTED: {
      auto r = msg.getExecuted();
      return FromWorker(Executed{r.getFeatureCount(), r.getExecTimeUs()});
    }
    case schema::FromWorker::MINIMIZED: {
      auto r = msg.getMinimized();
      return FromWorker(
          Minimized{r.getRuns(), r.getInputSize(), r.getFeatureCount(), r.getTimedOut()});
    }
  }
  return Status::Error("a worker message of unknown kind " +
                       std::to_string(static_cast<unsigned>(msg.which())));
}

}  // namespace

Result<FromWorker> DecodeFromWorker(const engine::FrameWords& words) {
  try {
    return Decode(words);
  } catch (const kj::Exception& e) {
    return Status::Error(StatusCode::kInvalid,
                         "a malformed worker message (" +
                             std::string(e.getDescription().cStr()).substr(0, 200) + ")");
  }
}

Status SendConfigure(WorkerProcess& worker, uint32_t max_len,
                     const std::vector<std::string>& dictionary, bool only_ascii) {
  capnp::MallocMessageBuilder message;
  auto config = message.initRoot<schema::ToWorker>().initConfigure();
  config.setMaxLen(max_len);
  config.setOnlyAscii(only_ascii);
  auto dict = config.initDictionary(static_cast<unsigned>(dictionary.size()));
  for (size_t i = 0; i < dictionary.size(); i++) {
    const std::string& e = dictionary[i];
    dict.set(static_cast<unsigned>(i),
             schema::AsData(reinterpret_cast<const uint8_t*>(e.data()), e.size()));
  }
  return worker.Send(message);
}

Status SendFuzz(WorkerProcess& worker, const FuzzParams& params) {
  capnp::MallocMessageBuilder message;
  auto fuzz = message.initRoot<schema::ToWorker>().initFuzz();
  fuzz.setRngState(params.rng_state);
  fuzz.setRngInc(params.rng_inc);
  fuzz.setDurationMs(params.duration_ms);
  fuzz.setMaxRuns(params.max_runs);
  fuzz.setOwnedCount(params.owned_count);
  fuzz.setStage(params.stage);
  fuzz.setStageFrom(params.stage_from);
  return worker.Send(message);
}

Status SendExecute(WorkerProcess& worker) {
  capnp::MallocMessageBuilder message;
  message.initRoot<schema::ToWorker>().initExecute();
  return worker.Send(message);
}

Status SendMinimize(WorkerProcess& worker, uint32_t feature_count, uint64_t max_runs,
                    uint32_t duration_ms) {
  capnp::MallocMessageBuilder message;
  auto m = message.initRoot<schema::ToWorker>().initMinimize();
  m.setFeatureCount(feature_count);
  m.setMaxRuns(max_runs);
  m.setDurationMs(duration_ms);
  return worker.Send(message);
}

Status SendShutdown(WorkerProcess& worker) {
  capnp::MallocMessageBuilder message;
  message.initRoot<schema::ToWorker>().setShutdown();
  return worker.Send(message);
}

}  // namespace pollen::node
