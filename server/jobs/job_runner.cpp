#include "server/jobs/job_runner.h"

#include "base/clock.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>

#include "analyzer/trace/trace_diff.h"
#include "base/log.h"
#include "base/message_code.h"
#include "server/codec/jobs/job_spec_json.h"
#include "server/jobs/executors/capped_log.h"
#include "server/jobs/executors/subprocess.h"
#include "server/jobs/kernel_units.h"
#include "server/services/repositories.h"

namespace forkscope::server {
namespace fs = std::filesystem;
using nlohmann::json;
using storage::JobRecord;
using storage::JobState;
using storage::StageRecord;

namespace {

bool Stops(JobState s) {
  return s == JobState::kFailed || s == JobState::kTimedOut || s == JobState::kCancelled || s == JobState::kLost;
}

// Sets a stage's reason: its English text and its code (docs/openapi.yaml, MessageCode).
void SetReason(StageRecord& s, std::string text, const std::string& code, const json& params = json::object()) {
  s.reason = std::move(text);
  s.reason_code = code;
  s.reason_params = base::MessageParamsText(params);
}

// A stage's reason as a nested message, for the job's own reason.
json StageReason(const StageRecord& s) {
  if (s.reason.empty()) return nullptr;
  json params = json::parse(s.reason_params.empty() ? "{}" : s.reason_params, nullptr, false);
  return base::NestedMessage(s.reason_code, params, s.reason);
}

// What stopped a job: a stage's end, the cancel, the checkout. text is the English of message.
struct Stopper {
  std::string text;
  json message;
  bool empty() const { return text.empty(); }
};

Stopper StoppedByStage(const StageRecord& s) {
  const std::string state = storage::JobStateName(s.state);
  return {s.name + " " + state,
          base::NestedMessage("job.stopped_by", {{"stage", s.name}, {"state", state}}, s.name + " " + state)};
}

// Why a stage cannot run on a runner, with its code.
struct Unmet {
  std::string text;
  std::string code;
  json params;
};

std::optional<Unmet> FindUnmet(const StageSpec& stage, const RunnerInfo& runner) {
  const int need = NeededGpus(stage);
  const int have = static_cast<int>(runner.gpus.size());
  if (need > 0 && runner.gpus.empty()) return Unmet{"no GPU runner", "stage.no_gpu", json::object()};
  if (need > have)
    return Unmet{"needs " + std::to_string(need) + " GPUs, the runner has " + std::to_string(have),
                 "stage.gpus",
                 {{"need", need}, {"have", have}}};
  // A Slurm partition does not report its CUDA version: the requirement is the recipe's to honour.
  if (!stage.min_cuda.empty() && runner.executor != "slurm") {
    if (runner.cuda.empty())
      return Unmet{
          "needs CUDA >= " + stage.min_cuda + ", the runner has none", "stage.no_cuda", {{"min_cuda", stage.min_cuda}}};
    if (CompareVersions(runner.cuda, stage.min_cuda) < 0)
      return Unmet{"needs CUDA >= " + stage.min_cuda + ", the runner has " + runner.cuda,
                   "stage.cuda",
                   {{"min_cuda", stage.min_cuda}, {"cuda", runner.cuda}}};
  }
  return std::nullopt;
}

std::string TraceDiffScript(const StageSpec& spec, const std::string& ref, const std::string& mig) {
  auto one = [](const char* what, const std::string& trace, const std::string& command) {
    return "FORKSCOPE_TRACE=" + ShellQuote(trace) + " /bin/sh -c " + ShellQuote(command) +
           " || { rc=$?; echo \"[forkscope: " + what + " command failed with exit code $rc]\"; exit $rc; }\n";
  };
  std::string s;
  if (!spec.run.empty()) s += "/bin/sh -c " + ShellQuote(spec.run) + " || exit $?\n";
  s += "rm -f " + ShellQuote(ref) + " " + ShellQuote(mig) + "\n";
  s += one("reference", ref, spec.reference);
  s += one("migrated", mig, spec.migrated);
  return s;
}

struct StagePaths {
  std::string workdir;
  std::string log;
  std::string reference_trace;
  std::string migrated_trace;
};

StagePaths PathsFor(const JobRecord& job, const StageSpec& spec) {
  StagePaths p;
  std::string tree = job.work_dir + "/tree";
  p.workdir = spec.workdir.empty() ? tree : tree + "/" + spec.workdir;
  p.log = job.work_dir + "/" + spec.name + ".log";
  p.reference_trace =
      spec.reference_trace.empty() ? job.work_dir + "/compare-reference.jsonl" : p.workdir + "/" + spec.reference_trace;
  p.migrated_trace =
      spec.migrated_trace.empty() ? job.work_dir + "/compare-migrated.jsonl" : p.workdir + "/" + spec.migrated_trace;
  return p;
}

std::string KernelsDir(const JobRecord& job) { return job.work_dir + "/kernels"; }

// The kernels stage's units: chosen from the checked-out tree with the job's rules (else the default).
KernelSelection KernelsOf(const JobRecord& job, const StageSpec& spec, const JobRunContext& ctx) {
  if (ctx.rules) return SelectKernelUnits(job.work_dir + "/tree", spec.kernels, *ctx.rules);
  static const Result<analyzer::Rules> kDefault = analyzer::Rules::LoadDefault();
  if (!kDefault.ok()) return {{}, "kernel_layer", "no classification rules: " + kDefault.status().message()};
  return SelectKernelUnits(job.work_dir + "/tree", spec.kernels, *kDefault);
}

std::string ScriptFor(const JobRecord& job, const StageSpec& spec, const StagePaths& p,
                      const KernelSelection* kernels) {
  if (spec.name == "compare") return TraceDiffScript(spec, p.reference_trace, p.migrated_trace);
  if (kernels) return KernelScript(spec, *kernels, job.work_dir + "/tree", KernelsDir(job));
  return spec.run;
}

StageCommand CommandFor(const JobRecord& job, const Recipe& recipe, const StageSpec& spec, const JobRunContext& ctx,
                        const KernelSelection* kernels) {
  StagePaths p = PathsFor(job, spec);
  StageCommand c;
  c.job_id = job.id;
  c.stage = spec.name;
  c.script = ScriptFor(job, spec, p, kernels);
  c.env = recipe.env;
  c.env.insert(c.env.end(), spec.env.begin(), spec.env.end());
  c.env.insert(c.env.end(), {{"FORKSCOPE_JOB_ID", job.id},
                             {"FORKSCOPE_SHA", job.sha},
                             {"FORKSCOPE_STAGE", spec.name},
                             {"FORKSCOPE_WORK_TREE", job.work_dir + "/tree"},
                             {"FORKSCOPE_JOB_DIR", job.work_dir}});
  c.workdir = p.workdir;
  c.timeout_s = spec.timeout_s;
  c.gpus = NeededGpus(spec);
  c.slurm_args = spec.slurm_args;
  c.log_path = p.log;
  c.log_cap_bytes = ctx.log_cap_bytes;
  return c;
}

// After the compare commands passed: diff their traces; the stage fails on a divergence.
void CompareTraces(const JobRecord& job, const StageSpec& spec, StageRecord& rec, const JobRunContext& ctx) {
  StagePaths p = PathsFor(job, spec);
  auto ref = analyzer::LoadTrace(p.reference_trace);
  auto mig = ref.ok() ? analyzer::LoadTrace(p.migrated_trace) : ref;
  std::ofstream log(p.log, std::ios::app);
  if (!ref.ok() || !mig.ok()) {
    rec.state = JobState::kFailed;
    const std::string error = !ref.ok() ? ref.status().message() : mig.status().message();
    SetReason(rec, "trace: " + error, "stage.trace", {{"error", error}});
    log << "[forkscope: " << rec.reason << "]\n";
    return;
  }
  analyzer::TraceDiffResult diff = analyzer::DiffTraces(*ref, *mig, analyzer::TraceTolerance{spec.atol, spec.rtol});
  if (diff.divergence) analyzer::AttachLayer(*diff.divergence, ctx.analysis, ctx.rules, job.work_dir + "/tree");
  rec.result = analyzer::TraceDiffToJson(diff).dump();
  log << "[forkscope: trace diff]\n" << analyzer::RenderTraceDiffText(diff);
  if (!diff.divergence) return;
  const analyzer::Divergence& d = *diff.divergence;
  rec.state = JobState::kFailed;
  const std::string site = d.migrated_site.empty() ? d.reference_site : d.migrated_site;
  std::string text = "first divergence at record " + std::to_string(d.index) + " (" +
                     analyzer::DivergenceKindName(d.kind) + "): op " + d.op + " at " + site;
  if (d.layer) text += std::string(" [layer ") + analyzer::LayerName(*d.layer) + "]";
  SetReason(rec, text, "stage.divergence",
            {{"index", d.index},
             {"kind", analyzer::DivergenceKindName(d.kind)},
             {"op", d.op},
             {"site", site},
             {"layer", d.layer ? json(analyzer::LayerName(*d.layer)) : json(nullptr)}});
}

class StageRun {
 public:
  StageRun(JobRecord& job, size_t index, JobRunContext& ctx) : job_(job), rec_(job.stages[index]), ctx_(ctx) {}

  // Runs or resumes the stage; false when the executor let go of it (detached).
  bool Execute(const Recipe& recipe, const StageSpec& spec) {
    std::optional<KernelSelection> kernels;
    if (spec.name == "kernels") kernels = KernelsOf(job_, spec, ctx_);
    StageCommand cmd = CommandFor(job_, recipe, spec, ctx_, kernels ? &*kernels : nullptr);
    std::error_code ec;
    if (rec_.handle.empty()) fs::remove(cmd.log_path, ec);
    StageEvents events;
    events.submitted = [this](const std::string& handle) {
      rec_.handle = handle;
      rec_.state = JobState::kQueued;
      Save();
    };
    events.started = [this] {
      rec_.state = JobState::kRunning;
      started_us_ = ctx_.clock->MonotonicUs();
      Save();
    };
    if (rec_.started_at == 0) rec_.started_at = ctx_.clock->NowS();
    if (rec_.handle.empty()) rec_.state = JobState::kQueued;
    Save();
    StageOutcome o = rec_.handle.empty() ? ctx_.executor->Run(cmd, *ctx_.stop, events)
                                         : ctx_.executor->Resume(cmd, rec_.handle, *ctx_.stop, events);
    if (o.state == JobState::kRunning) return false;
    rec_.state = o.state;
    rec_.exit_code = o.exit_code;
    rec_.reason = o.reason;
    rec_.reason_code = o.reason_code;
    rec_.reason_params = o.reason_params;
    rec_.finished_at = ctx_.clock->NowS();
    if (o.run_ms)
      rec_.duration_ms = *o.run_ms;
    else if (started_us_)
      rec_.duration_ms = (ctx_.clock->MonotonicUs() - *started_us_) / 1000;
    else
      rec_.duration_ms = (rec_.finished_at - rec_.started_at) * 1000;
    if (!o.node.empty()) NoteNode(o.node);
    if (spec.name == "compare" && rec_.state == JobState::kPassed) CompareTraces(job_, spec, rec_, ctx_);
    if (kernels) ReadKernelResults(*kernels, job_.work_dir + "/tree", KernelsDir(job_), rec_);
    rec_.log_tail = ReadLogTail(cmd.log_path);
    Save();
    return true;
  }

 private:
  void Save() {
    if (Status st = ctx_.store->Save(job_); !st.ok())
      base::Log(base::LogArea::kJobs)->warn("job save failed id={} error={}", job_.id, st.message());
  }
  void NoteNode(const std::string& node) {
    json runner = json::parse(job_.runner.empty() ? "{}" : job_.runner, nullptr, false);
    if (!runner.is_object()) runner = json::object();
    runner["node"] = node;
    job_.runner = runner.dump();
  }

  JobRecord& job_;
  StageRecord& rec_;
  JobRunContext& ctx_;
  std::optional<int64_t> started_us_;  // monotonic, when the stage started
};

// Writes the job's commit (and, unless the recipe opts out, its submodules) into <work_dir>/tree,
// each step a line of the checkout log, which the job page shows when no stage ran.
Status CheckoutTree(const JobRecord& job, const Recipe& recipe, const JobRunContext& ctx) {
  std::ofstream log(CheckoutLogPath(job), std::ios::app);
  auto line = [&log](const std::string& text) {
    log << text << '\n';
    log.flush();
  };
  line("[forkscope: checkout " + job.sha + (recipe.submodules ? ", with submodules" : ", submodules skipped") + "]");
  CheckoutOptions options = ctx.checkout;
  options.submodules = recipe.submodules;
  options.log = line;
  Status st = CheckoutWorkTree(job.repo, job.sha, job.work_dir + "/tree", options);
  line(st.ok() ? "[forkscope: checkout done]" : "[forkscope: checkout failed: " + st.message() + "]");
  return st;
}

// The work tree a (resumed) job runs in: checked out unless a previous run left it.
Status PrepareWorkTree(const JobRecord& job, const Result<Recipe>& recipe, const JobRunContext& ctx) {
  if (!recipe.ok() || recipe->stages.size() != job.stages.size())
    return Internal("the stored recipe does not match the job's stages");
  std::error_code ec;
  if (fs::exists(job.work_dir + "/tree", ec)) return Status::Ok();
  fs::create_directories(job.work_dir, ec);
  return CheckoutTree(job, *recipe, ctx);
}

void SkipRest(JobRecord& job, const Stopper& why) {
  for (auto& s : job.stages)
    if (!storage::IsFinished(s.state)) {
      s.state = JobState::kSkipped;
      SetReason(s, "not run: " + why.text, "stage.not_run", {{"why", why.message}});
    }
}

}  // namespace

std::string NewJobId() {
  static std::mt19937_64 rng{std::random_device{}() ^ static_cast<uint64_t>(base::SystemClock().NowS())};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  char buf[16];
  snprintf(buf, sizeof buf, "j%012llx", static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
  return buf;
}

JobRecord NewJob(const std::string& id, const std::string& fork, const std::string& repo, const std::string& sha,
                 const Recipe& recipe, const std::string& executor, const std::string& jobs_dir, int64_t now_s) {
  JobRecord j;
  j.id = id;
  j.fork = fork;
  j.repo = repo;
  j.sha = sha;
  j.recipe = recipe.name;
  j.recipe_spec = RecipeToJson(recipe).dump();
  j.executor = executor;
  j.state = JobState::kQueued;
  j.runner = "{}";
  j.work_dir = jobs_dir + "/" + id;
  j.created_at = now_s;
  for (const auto& s : recipe.stages) {
    StageRecord r;
    r.name = s.name;
    j.stages.push_back(std::move(r));
  }
  return j;
}

std::optional<std::string> UnmetRequirement(const StageSpec& stage, const RunnerInfo& runner) {
  std::optional<Unmet> unmet = FindUnmet(stage, runner);
  if (!unmet) return std::nullopt;
  return unmet->text;
}

bool JobErrored(const JobRecord& job) {
  if (job.state == JobState::kLost || job.state == JobState::kCancelled) return true;
  if (job.state != JobState::kFailed) return false;
  for (const auto& s : job.stages)
    if (s.started_at != 0) return false;
  return true;  // failed before any stage ran: the checkout or the stored recipe
}

std::string CheckoutLogPath(const JobRecord& job) { return job.work_dir + "/checkout.log"; }

JobState OverallState(const std::vector<StageRecord>& stages, std::string* reason, std::string* reason_code,
                      std::string* reason_params) {
  std::string why, code;
  json params = json::object();
  JobState state = JobState::kPassed;
  for (const auto& s : stages) {
    if (Stops(s.state)) {
      why = s.name + " " + storage::JobStateName(s.state) + (s.reason.empty() ? "" : ": " + s.reason);
      code = "job.stage_stopped";
      params = {{"stage", s.name}, {"state", storage::JobStateName(s.state)}, {"reason", StageReason(s)}};
      state = s.state;
      break;
    }
    if (s.state == JobState::kSkipped && state == JobState::kPassed) {
      state = JobState::kSkipped;
      why = s.name + " skipped: " + s.reason;
      code = "job.stage_skipped";
      params = {{"stage", s.name}, {"reason", StageReason(s)}};
    } else if (!storage::IsFinished(s.state)) {
      state = state == JobState::kSkipped ? state : JobState::kRunning;
    }
  }
  const bool none = state == JobState::kPassed || state == JobState::kRunning;
  if (reason) *reason = none ? "" : why;
  if (reason_code) *reason_code = none ? "" : code;
  if (reason_params) *reason_params = base::MessageParamsText(none ? json::object() : params);
  return state;
}

namespace {

bool SaveJob(const JobRecord& job, JobRunContext& ctx) {
  Status st = ctx.store->Save(job);
  if (!st.ok())
    base::Log(base::LogArea::kJobs)
        ->warn("job save failed id={} state={} error={}", job.id, storage::JobStateName(job.state), st.message());
  return st.ok();
}

// The API reads jobs from the table: one vetoed or busy commit of the final record must not leave the
// job reading as running, so a failed write is tried once more.
void SaveFinal(const JobRecord& job, JobRunContext& ctx) {
  if (!SaveJob(job, ctx) && SaveJob(job, ctx))
    base::Log(base::LogArea::kJobs)->info("job saved after retry id={}", job.id);
}

// Runs the stages that have not finished, in order. False when the job was let go of (detach, or an
// executor that let go of a stage): it resumes at that stage after a restart. *stopped_by names what
// stopped the job (a stage's end, or the cancel), "" when nothing did.
bool RunStages(JobRecord& job, const Recipe& recipe, const RunnerInfo& runner, JobRunContext& ctx,
               Stopper* stopped_by) {
  for (size_t i = 0; i < job.stages.size(); ++i) {
    StageRecord& rec = job.stages[i];
    const StageSpec& spec = recipe.stages[i];
    if (storage::IsFinished(rec.state)) {
      if (Stops(rec.state)) *stopped_by = StoppedByStage(rec);
      continue;
    }
    if (!stopped_by->empty()) continue;
    if (ctx.stop->detach && rec.handle.empty()) return false;
    if (ctx.stop->cancel && rec.handle.empty()) {
      rec.state = JobState::kCancelled;
      SetReason(rec, "cancelled before it started", "stage.cancelled_before_start");
      *stopped_by = {"job cancelled", base::NestedMessage("job.cancelled", json::object(), "job cancelled")};
      continue;
    }
    if (auto unmet = FindUnmet(spec, runner); unmet && rec.handle.empty()) {
      rec.state = JobState::kSkipped;
      SetReason(rec, unmet->text, unmet->code, unmet->params);
      SaveJob(job, ctx);
      continue;
    }
    if (!StageRun(job, i, ctx).Execute(recipe, spec)) return false;
    if (Stops(rec.state)) *stopped_by = StoppedByStage(rec);
  }
  return true;
}

}  // namespace

JobRecord RunJob(JobRecord job, JobRunContext& ctx) {
  json spec = json::parse(job.recipe_spec, nullptr, false);
  auto recipe = RecipeFromJson(spec);
  job.state = JobState::kRunning;
  if (job.started_at == 0) job.started_at = ctx.clock->NowS();
  RunnerInfo runner = ctx.executor->Runner();
  if (job.runner.empty() || job.runner == "{}") job.runner = RunnerToJson(runner).dump();
  Status ready = PrepareWorkTree(job, recipe, ctx);
  if (!ready.ok()) {
    SkipRest(job, {"checkout failed", base::NestedMessage("job.checkout_failed", json::object(), "checkout failed")});
    job.state = JobState::kFailed;
    job.reason = "checkout: " + ready.message();
    job.reason_code = "job.checkout";
    job.reason_params = base::MessageParamsText({{"error", ready.message()}});
    job.finished_at = ctx.clock->NowS();
    SaveFinal(job, ctx);
    return job;
  }
  SaveJob(job, ctx);
  Stopper stopped_by;
  if (!RunStages(job, *recipe, runner, ctx, &stopped_by)) return job;  // let go of; resumed after a restart
  if (!stopped_by.empty()) SkipRest(job, stopped_by);
  job.state = OverallState(job.stages, &job.reason, &job.reason_code, &job.reason_params);
  job.finished_at = ctx.clock->NowS();
  std::error_code ec;
  if (!ctx.keep_work_tree) fs::remove_all(job.work_dir + "/tree", ec);
  SaveFinal(job, ctx);
  base::Log(base::LogArea::kJobs)
      ->info("job finished id={} state={} reason={}", job.id, storage::JobStateName(job.state), job.reason);
  return job;
}

}  // namespace forkscope::server
