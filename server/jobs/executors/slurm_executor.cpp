#include "server/jobs/executors/slurm_executor.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include "base/log.h"
#include "base/message_code.h"
#include "server/jobs/executors/capped_log.h"
#include "server/jobs/executors/subprocess.h"

namespace forkscope::server {
namespace {

using storage::JobState;

constexpr int kMaxQueryFailures = 5;

// The value of "Key=value" in a `scontrol -o` line ("" when absent).
std::string Field(std::string_view text, std::string_view key) {
  std::string needle = " " + std::string(key) + "=";
  std::string padded = " " + std::string(text);
  size_t at = padded.find(needle);
  if (at == std::string::npos) return "";
  size_t b = at + needle.size();
  size_t e = padded.find_first_of(" \n", b);
  return padded.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::optional<int> ParseExitCode(const std::string& text) {  // "a:b"
  if (text.empty()) return std::nullopt;
  size_t colon = text.find(':');
  int code = std::atoi(text.substr(0, colon).c_str());
  int sig = colon == std::string::npos ? 0 : std::atoi(text.substr(colon + 1).c_str());
  return sig != 0 && code == 0 ? 128 + sig : code;
}

std::string FirstWord(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_first_of(" \t\n|+", b);
  return std::string(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
}

// Sleeps up to ms, waking early when a stop flag is raised.
void Nap(int ms, const StopFlags& stop) {
  for (int slept = 0; slept < ms && !stop.cancel && !stop.detach; slept += 100)
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100, ms - slept)));
}

StageOutcome FinalOutcome(const SlurmJobStatus& s, const std::string& id) {
  StageOutcome o;
  o.node = s.node;
  o.exit_code = s.exit_code;
  if (s.run_s) o.run_ms = *s.run_s * 1000;
  o.state = MapSlurmState(s.state);
  if (o.state == JobState::kPassed) return o;
  o.reason = "Slurm job " + id + " " + s.state;
  nlohmann::json params{{"slurm_job", id}, {"slurm_state", s.state}, {"exit_code", nullptr}, {"slurm_reason", nullptr}};
  if (o.state == JobState::kFailed && s.exit_code) {
    o.reason += " with exit code " + std::to_string(*s.exit_code);
    params["exit_code"] = *s.exit_code;
  }
  if (!s.reason.empty() && s.reason != "None") {
    o.reason += " (" + s.reason + ")";
    params["slurm_reason"] = s.reason;
  }
  o.reason_code = "stage.slurm";
  o.reason_params = base::MessageParamsText(params);
  return o;
}

// sinfo's gres column ("gpu:h200:8(S:0-1)", "gpu:4", "(null)") -> GPUs of one node.
std::vector<GpuInfo> GpusFromGres(std::string_view gres) {
  std::vector<GpuInfo> gpus;
  size_t at = gres.find("gpu");
  if (at == std::string_view::npos) return gpus;
  std::string item(gres.substr(at, gres.find_first_of(",(", at) - at));
  std::vector<std::string> parts;
  for (size_t s = 0; s <= item.size();) {
    size_t c = std::min(item.find(':', s), item.size());
    parts.push_back(item.substr(s, c - s));
    s = c + 1;
  }
  int count = parts.size() >= 2 ? std::atoi(parts.back().c_str()) : 0;
  std::string model = parts.size() >= 3 ? parts[1] : "gpu";
  for (int i = 0; i < count; ++i) gpus.push_back(GpuInfo{i, model, 0, "", ""});
  return gpus;
}

}  // namespace

JobState MapSlurmState(std::string_view state) {
  std::string s = FirstWord(state);
  if (s == "PENDING" || s == "REQUEUED" || s == "REQUEUE_HOLD" || s == "REQUEUE_FED" || s == "RESV_DEL_HOLD")
    return JobState::kQueued;
  if (s == "RUNNING" || s == "COMPLETING" || s == "CONFIGURING" || s == "SUSPENDED" || s == "STAGE_OUT" ||
      s == "SIGNALING" || s == "RESIZING" || s == "STOPPED")
    return JobState::kRunning;
  if (s == "COMPLETED") return JobState::kPassed;
  if (s == "FAILED" || s == "OUT_OF_MEMORY") return JobState::kFailed;
  if (s == "TIMEOUT" || s == "DEADLINE") return JobState::kTimedOut;
  if (s == "CANCELLED") return JobState::kCancelled;
  return JobState::kLost;  // NODE_FAIL, BOOT_FAIL, PREEMPTED, REVOKED, SPECIAL_EXIT, unknown
}

std::optional<int64_t> ParseSlurmDuration(std::string_view text) {
  int64_t days = 0;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    days = std::atoll(std::string(text.substr(0, dash)).c_str());
    text.remove_prefix(dash + 1);
  }
  std::vector<int64_t> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t colon = std::min(text.find(':', start), text.size());
    std::string_view part = text.substr(start, colon - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    parts.push_back(std::atoll(std::string(part).c_str()));
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  int64_t s = 0;
  for (int64_t p : parts) s = s * 60 + p;
  return days * 86400 + s;
}

std::optional<SlurmJobStatus> ParseScontrolJob(std::string_view text) {
  std::string state = Field(text, "JobState");
  if (state.empty()) return std::nullopt;
  SlurmJobStatus s;
  s.state = state;
  s.exit_code = ParseExitCode(Field(text, "ExitCode"));
  s.node = Field(text, "NodeList");
  if (s.node == "(null)") s.node.clear();
  s.reason = Field(text, "Reason");
  s.run_s = ParseSlurmDuration(Field(text, "RunTime"));
  return s;
}

std::optional<SlurmJobStatus> ParseSacct(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  if (line.find('|') == std::string_view::npos) return std::nullopt;
  SlurmJobStatus s;
  std::string l(line);
  std::vector<std::string> f;
  for (size_t start = 0; start <= l.size();) {
    size_t bar = std::min(l.find('|', start), l.size());
    f.push_back(l.substr(start, bar - start));
    start = bar + 1;
  }
  s.state = FirstWord(f[0]);
  if (f.size() > 1) s.exit_code = ParseExitCode(f[1]);
  if (f.size() > 2) s.node = f[2];
  if (f.size() > 3) s.run_s = ParseSlurmDuration(f[3]);
  if (s.state.empty()) return std::nullopt;
  return s;
}

std::string SbatchScript(const StageCommand& cmd) {
  std::string s = "#!/bin/sh\n# forkscope job " + cmd.job_id + ", stage " + cmd.stage + " (generated by forkscope)\n";
  for (const auto& [k, v] : cmd.env) s += "export " + k + "=" + ShellQuote(v) + "\n";
  s += "cd " + ShellQuote(cmd.workdir) + " || exit 126\n";
  s += "exec /bin/sh -c " + ShellQuote(cmd.script) + "\n";
  return s;
}

std::vector<std::string> SbatchArgs(const StageCommand& cmd, const SlurmExecutorOptions& options,
                                    const std::string& script_path) {
  std::string output;
  for (char c : cmd.log_path) output += c == '%' ? std::string("%%") : std::string(1, c);  // sbatch patterns
  int minutes = std::max(1, (cmd.timeout_s + 59) / 60);
  std::vector<std::string> args = {"--parsable", "--job-name=forkscope-" + cmd.job_id + "-" + cmd.stage,
                                   "--output=" + output, "--chdir=" + cmd.workdir, "--time=" + std::to_string(minutes)};
  if (!options.partition.empty()) args.push_back("--partition=" + options.partition);
  if (cmd.gpus > 0) args.push_back("--gres=gpu:" + std::to_string(cmd.gpus));
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  args.insert(args.end(), cmd.slurm_args.begin(), cmd.slurm_args.end());
  args.push_back(script_path);
  return args;
}

SlurmExecutor::SlurmExecutor(SlurmExecutorOptions options) : options_(std::move(options)) {}

std::string SlurmExecutor::Bin(const char* program) const {
  return options_.bin_dir.empty() ? program : options_.bin_dir + "/" + program;
}

RunnerInfo SlurmExecutor::Runner() {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = options_.clock->MonotonicUs();
  // sinfo is asked again after a minute: a cluster comes and goes, and a GET must not wait on it often.
  if (runner_ && now - runner_at_us_ < 60 * 1000000) return *runner_;
  runner_at_us_ = now;
  RunnerInfo r;
  r.executor = "slurm";
  r.name = "slurm:" + (options_.partition.empty() ? std::string("default") : options_.partition);
  std::vector<std::string> argv = {Bin("sinfo"), "-h", "-o", "%P|%a|%G|%N"};
  if (!options_.partition.empty()) argv.insert(argv.end(), {"-p", options_.partition});
  auto out = RunCapture(argv, options_.command_timeout_ms);
  r.available = out.ok() && out->exit_code == 0 && !out->out.empty();
  if (!r.available) {
    r.detail = out.ok() ? "sinfo: " + out->err.substr(0, out->err.find('\n')) : out.status().message();
  } else {
    std::string first = out->out.substr(0, out->out.find('\n'));
    std::string partition = first.substr(0, first.find('|'));
    if (options_.partition.empty() && !partition.empty() && partition.back() == '*') partition.pop_back();
    r.name = "slurm:" + partition;
    size_t start = 0;
    while (start < out->out.size()) {  // the node type with most GPUs
      size_t nl = std::min(out->out.find('\n', start), out->out.size());
      std::string line = out->out.substr(start, nl - start);
      start = nl + 1;
      auto gpus = GpusFromGres(line);
      if (gpus.size() > r.gpus.size()) r.gpus = gpus;
    }
    r.detail = "partition " + partition + ": " + std::to_string(r.gpus.size()) + " GPU(s) per node";
  }
  runner_ = r;
  return r;
}

std::optional<SlurmJobStatus> SlurmExecutor::Query(const std::string& id) {
  auto q = RunCapture({Bin("squeue"), "-h", "-j", id, "-o", "%T|%N|%r"}, options_.command_timeout_ms);
  if (q.ok() && q->exit_code == 0 && !q->out.empty() && q->out.find('|') != std::string::npos) {
    std::string line = q->out.substr(0, q->out.find('\n'));
    SlurmJobStatus s;
    size_t a = line.find('|'), b = line.find('|', a + 1);
    s.state = line.substr(0, a);
    s.node = line.substr(a + 1, b - a - 1);
    s.reason = b == std::string::npos ? "" : line.substr(b + 1);
    if (MapSlurmState(s.state) == JobState::kQueued || MapSlurmState(s.state) == JobState::kRunning) return s;
  }
  // Left the queue: scontrol keeps finished jobs for MinJobAge, accounting keeps them for good.
  auto sc = RunCapture({Bin("scontrol"), "show", "job", "-o", id}, options_.command_timeout_ms);
  if (sc.ok() && sc->exit_code == 0)
    if (auto s = ParseScontrolJob(sc->out)) return s;
  auto sa = RunCapture({Bin("sacct"), "-n", "-P", "-X", "-j", id, "-o", "State,ExitCode,NodeList,Elapsed"},
                       options_.command_timeout_ms);
  if (sa.ok() && sa->exit_code == 0)
    if (auto s = ParseSacct(sa->out)) return s;
  return std::nullopt;
}

void SlurmExecutor::Cancel(const std::string& id) {
  auto r = RunCapture({Bin("scancel"), id}, options_.command_timeout_ms);
  if (!r.ok() || r->exit_code != 0)
    base::Log(base::LogArea::kJobs)
        ->warn("scancel failed slurm_job={} error={}", id, r.ok() ? r->err : r.status().message());
}

StageOutcome SlurmExecutor::Run(const StageCommand& cmd, const StopFlags& stop, const StageEvents& events) {
  std::string script = std::filesystem::path(cmd.log_path).replace_extension(".sbatch").string();
  {
    std::ofstream out(script, std::ios::trunc);
    out << SbatchScript(cmd);
    if (!out) return EndedWithout(JobState::kFailed, "cannot write " + script);
  }
  std::vector<std::string> argv = {Bin("sbatch")};
  auto args = SbatchArgs(cmd, options_, script);
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = RunCapture(argv, options_.command_timeout_ms);
  if (!r.ok()) return EndedWithout(JobState::kFailed, "sbatch: " + r.status().message());
  std::string id = r->out.substr(0, r->out.find_first_of(";\n"));
  if (r->exit_code != 0 || id.empty() || id.find_first_not_of("0123456789_") != std::string::npos) {
    std::string err = r->err.substr(0, r->err.find('\n'));
    std::ofstream(cmd.log_path, std::ios::app) << "[forkscope: sbatch failed: " << r->err << "]\n";
    return EndedWithout(JobState::kFailed, "sbatch failed: " + err);
  }
  base::Log(base::LogArea::kJobs)->info("slurm job submitted job={} stage={} slurm_job={}", cmd.job_id, cmd.stage, id);
  if (events.submitted) events.submitted(id);
  return Follow(cmd, id, stop, events);
}

StageOutcome SlurmExecutor::Resume(const StageCommand& cmd, const std::string& handle, const StopFlags& stop,
                                   const StageEvents& events) {
  base::Log(base::LogArea::kJobs)
      ->info("slurm job re-attached job={} stage={} slurm_job={}", cmd.job_id, cmd.stage, handle);
  return Follow(cmd, handle, stop, events);
}

StageOutcome SlurmExecutor::Follow(const StageCommand& cmd, const std::string& id, const StopFlags& stop,
                                   const StageEvents& events) {
  auto now = [clock = options_.clock] { return clock->MonotonicUs(); };
  enum class Cause { kNone, kTimeout, kCancel } cause = Cause::kNone;
  std::optional<int64_t> deadline;  // the time limit counts from the start, not the queue
  int failures = 0;
  bool cancel_sent = false;
  std::optional<SlurmJobStatus> status;
  while (true) {
    if (stop.detach && cause == Cause::kNone) return EndedWithout(JobState::kRunning, "detached from Slurm job " + id);
    if (cause == Cause::kNone && stop.cancel) cause = Cause::kCancel;
    if (cause == Cause::kNone && deadline && now() >= *deadline) cause = Cause::kTimeout;
    if (cause != Cause::kNone && !cancel_sent) {
      Cancel(id);
      cancel_sent = true;
    }
    status = Query(id);
    if (!status) {
      if (++failures >= kMaxQueryFailures) break;
    } else {
      failures = 0;
      JobState state = MapSlurmState(status->state);
      if (state == JobState::kRunning && !deadline) {
        deadline = now() + int64_t{cmd.timeout_s} * 1000000;
        if (events.started) events.started();
      }
      if (storage::IsFinished(state)) break;
    }
    // Once cancelling, wait for Slurm to confirm at a short, fixed pace.
    if (cause != Cause::kNone)
      Nap(200, StopFlags{});
    else
      Nap(options_.poll_interval_ms, stop);
  }
  (void)CapLogFile(cmd.log_path, cmd.log_cap_bytes);
  if (!status) return EndedWithout(JobState::kLost, "Slurm no longer knows job " + id + " (no accounting)");
  StageOutcome o = FinalOutcome(*status, id);
  if (cause == Cause::kTimeout) {
    o.state = JobState::kTimedOut;
    o.exit_code.reset();
    o.reason = "timed out after " + std::to_string(cmd.timeout_s) + " s (Slurm job " + id + " cancelled)";
    o.reason_code = "stage.slurm_timed_out";
    o.reason_params = base::MessageParamsText({{"seconds", cmd.timeout_s}, {"slurm_job", id}});
  } else if (cause == Cause::kCancel) {
    o.state = JobState::kCancelled;
    o.exit_code.reset();
    o.reason = "cancelled (Slurm job " + id + ")";
    o.reason_code = "stage.slurm_cancelled";
    o.reason_params = base::MessageParamsText({{"slurm_job", id}});
  }
  std::ofstream(cmd.log_path, std::ios::app) << (o.reason.empty() ? "" : "[forkscope: " + o.reason + "]\n");
  return o;
}

}  // namespace forkscope::server
