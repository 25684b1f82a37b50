#pragma once
// han serve's HTTP endpoints, all answering JSON (but /metrics): POST /v1/predict and
// /v1/explain, GET /v1/model, /healthz, /readyz and /metrics, and POST /v1/reload when
// allowed. Every error, httplib's own included (404, 413), is {"error": "..."}.
// serve_state.h (Eigen) comes first: cpp-httplib pulls in glibc's <resolv.h>, whose `_res`
// macro breaks Eigen's headers included after it.
#include "serve_state.h"

#include <httplib.h>

namespace han::cli {

void add_routes(httplib::Server& server, ServeState& state);

}  // namespace han::cli
