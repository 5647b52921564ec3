// The dashboard's page (docs/dashboard.md): its HTML, script and style (controller/dashboard/)
// and Debian's Chart.js (libjs-chart.js), built into the controller, so that the page needs
// nothing from anywhere else, and a container image nothing more than the binary.
#ifndef POLLEN_CONTROLLER_DASHBOARD_PAGE_H_
#define POLLEN_CONTROLLER_DASHBOARD_PAGE_H_

#include "ops/ops_server.h"

namespace pollen::controller {

// GET "/" (and any path that is not a file: the page routes by its URL's hash),
// "/dashboard.js", "/dashboard.css", "/chart.min.js". Thread-safe (constant data).
ops::HttpReply DashboardPage(const ops::HttpRequest& request);

}  // namespace pollen::controller

#endif  // POLLEN_CONTROLLER_DASHBOARD_PAGE_H_
