// han ablate --config FILE [--seeds N] [--masks none,renorm,additive] [--batching bucket,random] [--output DIR]
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "han/text/data_format.h"
#include "han/study/ablation.h"
#include "han/study/ablation_table.h"
#include "han/text/corpus.h"
#include "han/core/error.h"
#include "han/core/io.h"
#include "han/study/report.h"
#include "han/train/run_folder.h"
#include "interrupts.h"
#include "logging.h"
#include "option_values.h"
#include "training_progress.h"

namespace han::cli {
namespace {

// "none,renorm,additive": a list option's default as it is typed.
std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

struct AblateArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string output;
  int seeds = 3;
  std::vector<std::string> masks = enum_names<MaskMode>();
  std::vector<std::string> batchings = enum_names<BatchStrategy>();
  bool overwrite = false;
  bool with_member = false;
  std::string encoding;  // --encoding: data.encoding
  LogOptions log;
};

AblationOptions ablation_options(const AblateArgs& a, const Config& cfg) {
  AblationOptions options;
  options.output_dir = a.output;
  options.overwrite = a.overwrite;
  options.seeds.clear();
  for (int s = 1; s <= a.seeds; ++s) options.seeds.push_back(cfg.trainer.seed + static_cast<std::uint64_t>(s - 1));
  options.masks.clear();
  for (const auto& m : a.masks) options.masks.push_back(parse_enum<MaskMode>(m, "--masks"));
  options.batchings.clear();
  for (const auto& b : a.batchings) options.batchings.push_back(parse_enum<BatchStrategy>(b, "--batching"));
  options.log = [](const std::string& line) { spdlog::info("{}", line); };
  options.stop_requested = stop_requested;
  return options;
}

// After an interruption: what is kept, and how to go on from it.
[[noreturn]] void report_interruption(const AblateArgs& a, const AblationOutcome& outcome) {
  std::fprintf(stderr,
               "han: interrupted: %d of %d runs finished, stored in %s/runs; run the same command again%s to continue "
               "(finished runs are re-used)\n",
               outcome.finished, outcome.total, a.output.c_str(), a.overwrite ? " without --overwrite" : "");
  throw CommandExit{stop_exit_code()};
}

// The variants are the HAN's own: the linear member, the same in every variant, would
// narrow their differences (at a share of 0.95 it hides them), so it is blended in only
// when asked for.
// `left_out` is set when the config had the member on. `as_read` is the config as given,
// which reads the data: the variants' HAN then reads what han train's would, and a token
// cache prepared for the config serves both.
Config ablated_config(const AblateArgs& a, bool& left_out, Config& as_read) {
  Config cfg = load_config_file(a.config, with_encoding(a.overrides, a.encoding));
  resolve_data_format(cfg.data);
  as_read = cfg;
  as_read.model.linear_member = cfg.model.linear_member || a.with_member;
  left_out = cfg.model.linear_member && !a.with_member;
  cfg.model.linear_member = a.with_member;
  if (!a.with_member) {  // these mean nothing without a member: stored as before, so earlier folders continue
    cfg.model.linear_text = LinearText::caps;
    cfg.model.linear_chars = Switch::off;
  }
  return cfg;
}

void run_ablate(AblateArgs& a) {
  setup_logging(a.log);
  bool member_left_out = false;
  Config as_read;
  const Config cfg = ablated_config(a, member_left_out, as_read);
  if (cfg.trainer.ensemble > 1)
    throw han::Error("trainer.ensemble: han ablate trains one model per variant and seed (its own --seeds) and does "
                     "not ensemble them; set trainer.ensemble to 1");
  if (a.output.empty()) a.output = (std::filesystem::path("runs") / ("ablate-" + std::filesystem::path(a.config).stem().string())).string();
  AblationOptions options = ablation_options(a, cfg);
  ProgressBar bar;
  if (show_progress(a.log))
    options.on_batch = [&bar](const AblationProgress& p) {
      bar.update(epoch_fraction(p.training), "run " + std::to_string(p.run) + "/" + std::to_string(p.runs) + " " +
                                                 p.name + " " + epoch_progress_text(p.training));
    };
  check_ablation_folder(cfg, options);  // before the data is read: a refusal comes at once
  embeddings_file(cfg, run_files(""));  // the same for "pretrain", which needs han train's run folder
  if (!cfg.trainer.init.empty())
    throw han::Error("trainer.init: han ablate trains every variant from scratch; start from a model with han train --init");
  if (member_left_out)
    spdlog::info("ablate compares the HAN variants alone: the linear member (model.linear_member) is left out; "
                 "--with-member blends it into every variant, as han predict does");
  stop_at_once("interrupted while reading the data; nothing was trained");
  const Corpus corpus = load_corpus(as_read);
  stop_gracefully();
  const AblationOutcome outcome = run_ablation(cfg, corpus, options);
  bar.finish();
  if (!outcome.result) report_interruption(a, outcome);
  const AblationResult& result = *outcome.result;
  write_file_atomically((std::filesystem::path(a.output) / "ablation.json").string(), result.to_json().dump(1) + "\n");
  write_file_atomically((std::filesystem::path(a.output) / "report.html").string(), ablation_report_html(result));
  write_file_atomically((std::filesystem::path(a.output) / "report.md").string(), ablation_markdown(result));
  std::fputs(ablation_table(result).c_str(), stdout);
  std::printf("wrote %s/ablation.json, %s/report.html and %s/report.md\n", a.output.c_str(), a.output.c_str(),
              a.output.c_str());
  if (std::fflush(stdout) != 0) throw han::Error("cannot write output", 1);
}

}  // namespace

void add_ablate_command(CLI::App& app) {
  auto args = std::make_shared<AblateArgs>();
  CLI::App* cmd = app.add_subcommand("ablate", "Train every mask x batching variant over seeds and compare them");
  cmd->add_option("-c,--config", args->config, "JSON config file (needs data.dev)")->required()->type_name("FILE");
  cmd->add_option("-s,--set", args->overrides, "Override a config key: key.path=value (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  cmd->add_option("-o,--output", args->output, "Output folder (default: runs/ablate-<config name>); finished runs are re-used")
      ->type_name("DIR");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace what the output folder holds (a training run, another config's ablation; else it is refused)");
  cmd->add_option("-n,--seeds", args->seeds, "Seeds per variant (trainer.seed, +1, ...)")->default_val(3)->check(in_range(1, 1000));
  cmd->add_option("--masks", args->masks, "Mask modes to compare")
      ->default_str(join_names(enum_names<MaskMode>()))
      ->delimiter(',')->check(one_of(enum_names<MaskMode>()));
  cmd->add_option("--batching", args->batchings, "Batching strategies to compare")
      ->default_str(join_names(enum_names<BatchStrategy>()))
      ->delimiter(',')->check(one_of(enum_names<BatchStrategy>()));
  cmd->add_flag("--with-member", args->with_member,
                "Blend the linear member into every variant, as han predict does (it is the same in every variant, "
                "so it narrows their differences; left out by default)");
  add_encoding_option(*cmd, args->encoding, "the data files'");
  add_log_options(*cmd, args->log);
  cmd->callback([args] { run_ablate(*args); });
}

}  // namespace han::cli
