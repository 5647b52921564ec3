#include "controller/dashboard_page.h"

#include <string_view>

// The files, assembled in as they are: POLLEN_DASHBOARD_DIR and POLLEN_CHART_JS come from
// controller/CMakeLists.txt, which also makes this file rebuild when one of them changes.
#define POLLEN_ASSET(name, path)               \
  asm(".pushsection .rodata\n"                 \
      ".global pollen_asset_" #name            \
      "\n"                                     \
      "pollen_asset_" #name                    \
      ":\n"                                    \
      ".incbin \"" path                        \
      "\"\n"                                   \
      ".global pollen_asset_" #name            \
      "_end\n"                                 \
      "pollen_asset_" #name                    \
      "_end:\n"                                \
      ".popsection\n");                        \
  extern "C" const char pollen_asset_##name[]; \
  extern "C" const char pollen_asset_##name##_end[];

POLLEN_ASSET(index_html, POLLEN_DASHBOARD_DIR "/index.html")
POLLEN_ASSET(dashboard_js, POLLEN_DASHBOARD_DIR "/dashboard.js")
POLLEN_ASSET(dashboard_css, POLLEN_DASHBOARD_DIR "/dashboard.css")
POLLEN_ASSET(chart_js, POLLEN_CHART_JS)

namespace pollen::controller {
namespace {

ops::HttpReply Asset(const char* begin, const char* end, const char* type) {
  ops::HttpReply reply;
  reply.content_type = type;
  reply.body.assign(begin, end);
  reply.headers.push_back({"Cache-Control", "no-cache"});
  reply.headers.push_back({"X-Content-Type-Options", "nosniff"});
  return reply;
}

}  // namespace

ops::HttpReply DashboardPage(const ops::HttpRequest& request) {
  const std::string_view path = request.path;
  if (path == "/dashboard.js") {
    return Asset(pollen_asset_dashboard_js, pollen_asset_dashboard_js_end,
                 "text/javascript; charset=utf-8");
  }
  if (path == "/dashboard.css") {
    return Asset(pollen_asset_dashboard_css, pollen_asset_dashboard_css_end,
                 "text/css; charset=utf-8");
  }
  if (path == "/chart.min.js") {
    return Asset(pollen_asset_chart_js, pollen_asset_chart_js_end,
                 "text/javascript; charset=utf-8");
  }
  ops::HttpReply page =
      Asset(pollen_asset_index_html, pollen_asset_index_html_end, "text/html; charset=utf-8");
  // The page loads only its own files: nothing from elsewhere, no inline script.
  page.headers.push_back(
      {"Content-Security-Policy",
       "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; "
       "img-src 'self' data:; frame-ancestors 'none'"});
  return page;
}

}  // namespace pollen::controller
