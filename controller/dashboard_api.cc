#include "controller/dashboard_api.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controller/client/reply_json.h"
#include "controller/client/safe_name.h"

namespace pollen::controller {
namespace {

ops::HttpReply Json(const nlohmann::json& json, int status = 200) {
  ops::HttpReply reply;
  reply.status = status;
  reply.content_type = "application/json";
  // Invalid UTF-8 in a report (a crash's text is the target's) is replaced, never thrown on.
  reply.body = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return reply;
}

ops::HttpReply Error(int status, const std::string& message) {
  return Json({{"error", message}}, status);
}

// An error reply of the handler, as HTTP.
ops::HttpReply FromError(const ErrorReply& e) {
  switch (e.code) {
    case ErrorCode::kUnknownCampaign:
    case ErrorCode::kNotFound:
      return Error(404, e.message);
    case ErrorCode::kInvalidName:
    case ErrorCode::kMalformed:
      return Error(400, e.message);
    case ErrorCode::kTooLarge:
      return Error(413, e.message);
    default:
      return Error(500, e.message);
  }
}

// The path's segments after "/api/".
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> parts;
  path.remove_prefix(std::string_view("/api/").size());
  while (!path.empty()) {
    const size_t slash = path.find('/');
    parts.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// A crash signature as a path segment or cursor: what nodes send is 16 hex digits, but the
// protocol allows any display text (a '/' could not be a path segment).
Status CheckSignature(std::string_view signature) {
  if (signature.empty() || signature.size() > ops::HttpRequest::kMaxParamBytes ||
      !IsDisplayText(signature) || signature.find('/') != std::string_view::npos) {
    return Status::Error("a crash signature is 1 to " +
                         std::to_string(ops::HttpRequest::kMaxParamBytes) +
                         " bytes of text without control characters or '/'");
  }
  return Status::Ok();
}

// `text` as one shell word.
std::string ShellWord(const std::string& text) {
  if (CheckSafeName("", text).ok()) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string QueryValue(const ops::HttpRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  return it == request.query.end() ? "" : it->second;
}

// A number of rows from the query (1 to `max`), `fallback` when the key is absent.
Result<size_t> RowLimit(const ops::HttpRequest& request, const std::string& key, size_t fallback,
                        size_t max) {
  const std::string text = QueryValue(request, key);
  if (text.empty()) return fallback;
  size_t limit = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || limit > max) {
      limit = 0;
      break;
    }
    limit = limit * 10 + static_cast<size_t>(c - '0');
  }
  if (limit == 0 || limit > max) {
    return Status::Error(key + " is a number of rows, 1 to " + std::to_string(max));
  }
  return limit;
}

nlohmann::json SampleJson(const CampaignSample& s) {
  return {{"unix_ms", s.unix_ms},
          {"executions", s.executions},
          {"execs_per_second", s.execs_per_second},
          {"edges", s.edges},
          {"features", s.features},
          {"corpus_entries", s.corpus_entries},
          {"crashes", s.crashes},
          {"nodes_alive", s.nodes_alive},
          {"nodes_lost", s.nodes_lost}};
}

}  // namespace

ops::HttpReply DashboardApi::Answer(const ops::HttpRequest& request, int64_t now_unix_ms,
                                    uint64_t now_ms) {
  if (request.path.rfind("/api/", 0) != 0) return Error(404, "not found");
  const std::vector<std::string> p = Segments(request.path);
  if (p.empty() || p[0] != "campaigns") return Error(404, "not found");
  if (p.size() == 1) return Campaigns(now_unix_ms, now_ms);
  if (Status name = CheckSafeName("campaign name", p[1]); !name.ok()) {
    return Error(400, name.message());
  }
  if (p.size() == 2) return Campaign(p[1], request, now_unix_ms, now_ms);
  if (p.size() == 3 && p[2] == "samples") return Samples(p[1]);
  if (p[2] == "nights") {
    if (p.size() == 3) return Nights(p[1]);
    if (Status s = CheckNightName(p[3]); !s.ok()) return Error(400, s.message());
    if (p.size() == 4) return Night(p[1], p[3]);
    return Error(404, "not found");
  }
  if (p[2] != "crashes") return Error(404, "not found");
  if (p.size() == 3) {
    const std::string after = QueryValue(request, "after");
    if (!after.empty()) {
      if (Status s = CheckSignature(after); !s.ok()) return Error(400, s.message());
    }
    Result<size_t> limit = RowLimit(request, "limit", kDefaultCrashRows, kMaxCrashRows);
    if (!limit.ok()) return Error(400, limit.status().message());
    return Crashes(p[1], after, limit.value());
  }
  if (Status s = CheckSignature(p[3]); !s.ok()) return Error(400, s.message());
  if (p.size() == 4) return Crash(p[1], p[3], /*reproducer=*/false);
  if (p.size() == 5 && p[4] == "reproducer") return Crash(p[1], p[3], /*reproducer=*/true);
  return Error(404, "not found");
}

ops::HttpReply DashboardApi::Campaigns(int64_t now_unix_ms, uint64_t now_ms) {
  Reply list = handler_->Handle(ListCampaignsRequest{}, now_unix_ms, now_ms);
  if (auto* e = std::get_if<ErrorReply>(&list)) return FromError(*e);
  Reply status = handler_->Handle(StatusRequest{}, now_unix_ms, now_ms);
  if (auto* e = std::get_if<ErrorReply>(&status)) return FromError(*e);
  nlohmann::json json = CampaignsJson(std::get<CampaignsReply>(list));
  // The figures of each campaign (pollen status), without the node table: one campaign's
  // page has it.
  std::get<StatusReply>(status).nodes.clear();
  nlohmann::json figures = StatusJson(std::get<StatusReply>(status));
  json["figures"] = figures["campaigns"];
  json["now_unix_ms"] = now_unix_ms;
  return Json(json);
}

ops::HttpReply DashboardApi::Campaign(const std::string& name, const ops::HttpRequest& request,
                                      int64_t now_unix_ms, uint64_t now_ms) {
  const std::string after = QueryValue(request, "nodes_after");
  if (!after.empty()) {
    if (Status s = CheckNodeId(after, ops::HttpRequest::kMaxParamBytes); !s.ok()) {
      return Error(400, "nodes_after: " + s.message());
    }
  }
  Result<size_t> rows_asked = RowLimit(request, "nodes_limit", kDefaultNodeRows, kMaxNodeRows);
  if (!rows_asked.ok()) return Error(400, rows_asked.status().message());
  const size_t limit = rows_asked.value();
  Reply status = handler_->Handle(StatusRequest{name}, now_unix_ms, now_ms);
  if (auto* e = std::get_if<ErrorReply>(&status)) return FromError(*e);
  Reply list = handler_->Handle(ListCampaignsRequest{}, now_unix_ms, now_ms);
  if (auto* e = std::get_if<ErrorReply>(&list)) return FromError(*e);
  // A page of the node table, in node id order (the registry's), after the cursor.
  StatusReply& all = std::get<StatusReply>(status);
  const size_t total = all.nodes.size();
  auto first = std::find_if(all.nodes.begin(), all.nodes.end(),
                            [&](const NodeStatus& n) { return n.node_id > after; });
  const size_t skip = static_cast<size_t>(first - all.nodes.begin());
  const size_t rows = std::min(limit, total - skip);
  std::vector<NodeStatus> page(std::make_move_iterator(first),
                               std::make_move_iterator(first + static_cast<long>(rows)));
  const bool more = skip + rows < total;
  all.nodes = std::move(page);
  nlohmann::json json = StatusJson(all);
  json["nodes_total"] = total;
  json["nodes_skipped"] = skip;
  json["nodes_next"] = more && !all.nodes.empty() ? all.nodes.back().node_id : "";
  for (const CampaignSummary& c : std::get<CampaignsReply>(list).campaigns) {
    if (c.name != name) continue;
    CampaignsReply one;
    one.campaigns.push_back(c);
    json["campaign"] = CampaignsJson(one)["campaigns"][0];
  }
  json["now_unix_ms"] = now_unix_ms;
  return Json(json);
}

ops::HttpReply DashboardApi::Samples(const std::string& name) {
  nlohmann::json list = nlohmann::json::array();
  for (const CampaignSample& s : samples_->Of(name)) list.push_back(SampleJson(s));
  return Json({{"campaign", name}, {"every_ms", samples_->every_ms()}, {"samples", list}});
}

ops::HttpReply DashboardApi::Crashes(const std::string& name, const std::string& after,
                                     size_t limit) {
  Reply reply = handler_->Handle(ListCrashesRequest{{name, ""}, after}, 0, 0);
  if (auto* e = std::get_if<ErrorReply>(&reply)) return FromError(*e);
  CrashListReply& list = std::get<CrashListReply>(reply);
  // A page ends at `limit` rows, or where the handler's reply had to; the next starts after
  // its last signature.
  if (list.crashes.size() > limit) {
    list.crashes.resize(limit);
    list.truncated = true;
  }
  nlohmann::json json = CrashesJson(name, list.crashes);
  const nlohmann::json* ledger = NightlyLedger(name);
  for (nlohmann::json& crash : json["crashes"]) AddNightly(ledger, crash);
  json["next"] = list.truncated && !list.crashes.empty() ? list.crashes.back().signature : "";
  return Json(json);
}

ops::HttpReply DashboardApi::Crash(const std::string& name, const std::string& signature,
                                   bool reproducer) {
  Reply reply = handler_->Handle(GetCrashRequest{{name, ""}, signature}, 0, 0);
  if (auto* e = std::get_if<ErrorReply>(&reply)) return FromError(*e);
  const CrashDetailReply& crash = std::get<CrashDetailReply>(reply);
  if (reproducer) {
    ops::HttpReply download;
    download.content_type = "application/octet-stream";
    download.body.assign(crash.input.begin(), crash.input.end());
    const std::string file =
        CheckSafeName("", signature).ok() ? "crash-" + signature : "crash-reproducer";
    download.headers.push_back({"Content-Disposition", "attachment; filename=\"" + file + "\""});
    return download;
  }
  nlohmann::json json = CrashJson(name, crash);
  AddNightly(NightlyLedger(name), json);
  json["repro"] = "pollen repro --campaign=" + name + " " + ShellWord(signature);
  return Json(json);
}

const nlohmann::json* DashboardApi::NightlyLedger(const std::string& name) {
  Result<const nlohmann::json*> ledger = nights_.Ledger(name);
  // A storage error: the crashes are shown without the nightly's word.
  return ledger.ok() ? ledger.value() : nullptr;
}

void DashboardApi::AddNightly(const nlohmann::json* ledger, nlohmann::json& crash) {
  if (ledger == nullptr || !ledger->is_object() || !crash.is_object()) return;
  auto sig = crash.find("signature");
  if (sig == crash.end() || !sig->is_string()) return;
  auto it = ledger->find(sig->get<std::string>());
  if (it != ledger->end()) crash["nightly"] = *it;
}

ops::HttpReply DashboardApi::Nights(const std::string& name) {
  Result<nlohmann::json> nights = nights_.Of(name);
  if (!nights.ok()) return Error(500, nights.status().message());
  if (nights->empty()) {  // a campaign without nights, or no campaign: which one is it
    Reply list = handler_->Handle(ListCampaignsRequest{}, 0, 0);
    if (auto* e = std::get_if<ErrorReply>(&list)) return FromError(*e);
    const auto& campaigns = std::get<CampaignsReply>(list).campaigns;
    if (std::none_of(campaigns.begin(), campaigns.end(),
                     [&](const CampaignSummary& c) { return c.name == name; })) {
      return Error(404, "no campaign " + name);
    }
  }
  return Json({{"campaign", name}, {"nights", std::move(nights).value()}});
}

ops::HttpReply DashboardApi::Night(const std::string& name, const std::string& night) {
  auto files = reports_->NightFiles(name, night);
  if (!files.ok()) return Error(500, files.status().message());
  if (files->empty()) return Error(404, "no report of the night " + night + " for " + name);
  nlohmann::json names = nlohmann::json::array();
  nlohmann::json json = {{"campaign", name}, {"night", night}, {"report_md", ""}};
  for (const auto& [file, data] : files.value()) {
    names.push_back(file);
    if (file == "report.md") json["report_md"] = data;
    if (file == "report.json") json["summary"] = SummarizeNight(night, data);
  }
  json["files"] = std::move(names);
  return Json(json);
}

}  // namespace pollen::controller
