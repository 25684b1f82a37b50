// han serve --model FILE [--host H] [--port P] [--threads N] [--backlog N] [--max-batch B]
//           [--max-wait-ms W] [--max-body SIZE] [--max-texts N] [--timeout S] [--keep-alive-timeout S]
//           [--keep-alive-max N] [--allow-reload]
// The command's options; serve_run.h runs it.
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "logging.h"
#include "option_values.h"
#include "serve_options.h"
#include "serve_run.h"

namespace han::cli {
namespace {

std::vector<std::string> command_line;

}  // namespace

void remember_command_line(int argc, char** argv) { command_line.assign(argv, argv + argc); }

const std::vector<std::string>& remembered_command_line() { return command_line; }

void add_serve_command(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Answer predictions over HTTP: a model behind a JSON API, batched");
  add_model_option(cmd, args->model);
  cmd->add_option("--host", args->http.host, "Address to listen on (loopback unless told otherwise)")->default_val("127.0.0.1");
  cmd->add_option("-p,--port", args->http.port, "Port to listen on; 0 picks a free one (printed at start)")
      ->default_val(8080)
      ->check(in_range(0, 65535));
  cmd->add_option("--threads", args->http.threads,
                  "Connections served at once (HTTP threads); more wait, and answers then ask clients to close")
      ->default_val(64)
      ->check(in_range(1, 4096));
  cmd->add_option("--backlog", args->http.backlog, "Connections the kernel holds until they are accepted")
      ->default_val(1024)
      ->check(in_range(1, 65535));
  cmd->add_option("--max-batch", args->max_batch, "Most documents in one forward pass")->default_val(64)->check(in_range(1, 4096));
  cmd->add_option("--max-wait-ms", args->max_wait_ms,
                  "Longest a batch waits for more documents while other requests are being read")
      ->default_val(5)
      ->check(in_range(0.0, 10000.0));
  cmd->add_option("--max-body", args->max_body, "Largest request body (B, KB, MB, GB); larger ones get 413")
      ->default_val("1MB")
      ->type_name("SIZE");
  cmd->add_option("--max-texts", args->max_texts, "Most texts in one request; more get 413")
      ->default_val(256)
      ->check(in_range(1, 1000000));
  cmd->add_option("--timeout", args->http.timeout,
                  "Seconds a client may stall while sending a request or reading its answer")
      ->default_val(5)
      ->check(in_range(0.1, 3600.0));
  cmd->add_option("--keep-alive-timeout", args->http.keep_alive_timeout,
                  "Seconds an idle connection stays open for its next request")
      ->default_val(5)
      ->check(in_range(1, 3600));
  cmd->add_option("--keep-alive-max", args->http.keep_alive_max, "Requests on one connection before it is closed")
      ->default_val(100)
      ->check(in_range(1, 1000000));
  cmd->add_flag("--allow-reload", args->allow_reload, "Also reload the model on POST /v1/reload (SIGHUP always does)");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { serve(*args); });
}

}  // namespace han::cli
