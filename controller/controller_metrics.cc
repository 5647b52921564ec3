#include "controller/controller_metrics.h"

namespace pollen::controller {
namespace {

double D(uint64_t v) { return static_cast<double>(v); }

}  // namespace

void AddControllerMetrics(const ControllerStatus& s, ops::MetricSet& m) {
  m.Counter("pollen_controller_requests_total", "Frames received, garbage included.",
            D(s.requests));
  for (size_t c = 0; c < kNumErrorCodes; ++c) {
    m.Counter("pollen_controller_errors_total", "Requests answered with an error, by code.",
              D(s.errors[c]), {{"code", ErrorCodeName(static_cast<ErrorCode>(c))}});
  }
  m.Counter("pollen_controller_replies_total", "Replies handed to ZeroMQ.", D(s.replies));
  m.Counter("pollen_controller_replies_dropped_total",
            "Replies dropped: the peer was gone or its queue full.", D(s.replies_dropped));
  m.Counter("pollen_controller_handshakes_total", "CURVE handshakes, by result.",
            D(s.handshakes_accepted), {{"result", "accepted"}});
  m.Counter("pollen_controller_handshakes_total", "CURVE handshakes, by result.",
            D(s.handshakes_refused), {{"result", "refused"}});
  m.Gauge("pollen_controller_campaigns", "Campaigns in the registry.", D(s.campaigns));
  m.Gauge("pollen_controller_nodes", "Nodes in the registry, by state.", D(s.nodes_alive),
          {{"state", "alive"}});
  m.Gauge("pollen_controller_nodes", "Nodes in the registry, by state.", D(s.nodes_lost),
          {{"state", "lost"}});
  m.Counter("pollen_controller_merges_total", "Corpus merges (set cover and compaction).",
            D(s.merges), {{"result", "ok"}});
  m.Counter("pollen_controller_merges_total", "Corpus merges (set cover and compaction).",
            D(s.merge_failures), {{"result", "failed"}});
  m.Counter("pollen_controller_merge_seconds_total", "Time the successful merges took.",
            D(s.merge_ms_total) / 1000.0);
  m.Gauge("pollen_controller_last_merge_seconds", "Time the last successful merge took.",
          D(s.merge_ms_last) / 1000.0);
  const StreamCounters& st = s.streams;
  m.Gauge("pollen_controller_streams_active", "Corpus and crash streams being served.",
          D(st.active));
  m.Counter("pollen_controller_streams_opened_total", "Streams (pulls and pushes) started.",
            D(st.opened));
  const char* help = "Streams (pulls and pushes) ended or refused, by outcome.";
  m.Counter("pollen_controller_streams_total", help, D(st.completed), {{"outcome", "completed"}});
  m.Counter("pollen_controller_streams_total", help, D(st.failed), {{"outcome", "failed"}});
  m.Counter("pollen_controller_streams_total", help, D(st.refused), {{"outcome", "refused"}});
  m.Counter("pollen_controller_streams_expired_total",
            "Failed streams whose peer went silent (counted in outcome=\"failed\" too).",
            D(st.expired));
  m.Counter("pollen_controller_stream_bytes_total", "Stream bytes, by direction.", D(st.bytes_sent),
            {{"direction", "sent"}});
  m.Counter("pollen_controller_stream_bytes_total", "Stream bytes, by direction.",
            D(st.bytes_received), {{"direction", "received"}});
}

}  // namespace pollen::controller
