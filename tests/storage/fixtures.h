// Fixtures of the storage tests: a temporary directory, a store opened in it (with or without one
// registered fork), a realistic analysis built in code (fixed commits and times), field-by-field
// comparison of analyses, and row counting on a side connection.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/model/model.h"
#include "storage/db.h"
#include "storage/store.h"

namespace forkscope::storage::testing {

namespace az = forkscope::analyzer;

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "forkscope-storage-XXXXXX").string();
    const char* made = mkdtemp(pattern.data());
    REQUIRE(made != nullptr);
    path_ = made;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The store at path, opened (created if need be) and migrated; the test stops, with the reason, if it
// cannot be.
inline std::unique_ptr<Store> OpenStore(const std::string& path) {
  auto store = Store::Open(path);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

// A fork to register: its name and URLs, every other field at its default.
inline ForkRecord MakeFork(const std::string& name, const std::string& fork_url, const std::string& upstream_url) {
  ForkRecord f;
  f.name = name;
  f.fork_url = fork_url;
  f.upstream_url = upstream_url;
  return f;
}

// A fresh store file with one registered fork, for the tests of the area stores that hang rows off a
// fork (candidates, alerts): construct the area store over store->db().
struct StoreWithFork {
  StoreWithFork(const std::string& name, const std::string& fork_url, const std::string& upstream_url) {
    auto created = store->CreateFork(MakeFork(name, fork_url, upstream_url));
    REQUIRE(created.ok());
    fork_id = created->id;
  }

  TempDir dir;
  std::string path = dir.File("forkscope.db");
  std::unique_ptr<Store> store = OpenStore(path);
  int64_t fork_id = 0;
};

// A hunk from "origin+text" lines, with ranges and line numbers counted the way git does.
inline az::Hunk MakeHunk(int old_start, int new_start, const std::vector<std::string>& lines, az::Layer layer,
                         std::vector<std::string> patterns = {}, std::vector<std::string> violations = {}) {
  az::Hunk h;
  h.old_start = old_start;
  h.new_start = new_start;
  h.layer = layer;
  h.patterns = std::move(patterns);
  h.violations = std::move(violations);
  int old_no = old_start;
  int new_no = new_start;
  for (const auto& raw : lines) {
    az::DiffLine line{raw[0], raw.substr(1)};
    if (line.origin != '+') line.old_lineno = old_no++, ++h.old_lines;
    if (line.origin != '-') line.new_lineno = new_no++, ++h.new_lines;
    h.lines.push_back(std::move(line));
  }
  return h;
}

inline az::FileChange MakeFile(std::string path, az::FileStatus status, az::Layer layer, az::Layer path_layer,
                               std::vector<az::Hunk> hunks) {
  az::FileChange f;
  f.path = std::move(path);
  f.status = status;
  f.layer = layer;
  f.path_layer = path_layer;
  f.hunks = std::move(hunks);
  for (const auto& h : f.hunks) {
    f.additions += h.additions();
    f.deletions += h.deletions();
  }
  return f;
}

// A compat-style migration of an attention-kernel library, touching every layer. fork_sha varies the
// commit so several analyses can be told apart.
inline az::Analysis MakeAnalysis(const std::string& fork_sha = std::string(40, 'f')) {
  using az::FileStatus;
  using az::Layer;
  az::Analysis a;
  a.fork = {"https://github.com/PFCCLab/flashinfer.git", "paddle", fork_sha};
  a.upstream = {"https://github.com/flashinfer-ai/flashinfer.git", "main", std::string(40, 'a')};
  a.merge_base = std::string(40, 'b');
  a.base_source = analyzer::BaseSource::kMergeBase;
  a.base_distance = az::BaseDistance{3,          120,
                                     40,         900,
                                     1000,       std::string(40, 'c'),
                                     880,        20,
                                     2,          1,
                                     1700000000, 4,
                                     "low",      "the runner-up keeps as many lines"};
  a.packages = {"flashinfer"};
  a.resolution_notices = 1;
  a.upstream_branch_choice = "auto";
  a.ahead = 12;
  a.behind = 340;
  a.style = az::MigrationStyle::kCompat;
  a.style_evidence.compat_hunks = 3;
  a.style_evidence.compat_lines = 4;
  a.style_evidence.native_hunks = 1;
  a.style_evidence.native_lines = 1;
  a.style_evidence.strongest = {{az::MigrationStyle::kCompat, "cpp_compat.pd-bridge", "csrc/ops.cu", 42, 2},
                                {az::MigrationStyle::kCompat, "build.global-enable-compat", "setup.py", 12, 1},
                                {az::MigrationStyle::kNative, "python.native-rewrite", "flashinfer/x.py", 0, 1}};
  a.rules_version = "2024.06-1";
  a.created_at = 1700000000;
  a.duration_ms = 4321;

  a.files.push_back(MakeFile(
      "setup.py", FileStatus::kModified, Layer::kBuild, Layer::kBuild,
      {MakeHunk(10, 10,
                {" import os", "+import paddle", "+paddle.enable_compat()", " from torch.utils import cpp_extension"},
                Layer::kBuild, {"build.enable-compat-global"})}));
  a.files.back().hunks[0].header = " def get_extensions():";
  a.files.push_back(MakeFile(
      "csrc/norm.cu", FileStatus::kModified, Layer::kCppCompat, Layer::kKernel,
      {MakeHunk(40, 40, {" __global__ void rms_norm_kernel(float* out) {", "-  int i = threadIdx.x;", "+  int i = 0;"},
                Layer::kKernel, {}, {"kernel-edit-unexplained"}),
       MakeHunk(200, 200,
                {" at::Tensor rmsnorm(at::Tensor x) {", "-  auto s = at::cuda::getCurrentCUDAStream();",
                 "+  auto s = paddle::experimental::current_stream(x._PD_GetInner());", "   return x;"},
                Layer::kCppCompat, {"cpp.pd-getinner-bridge", "cpp.stream-rewired"})}));
  a.files.back().hunks[1].context = "rmsnorm";
  a.files.push_back(
      MakeFile("flashinfer/__init__.py", FileStatus::kModified, Layer::kPython, Layer::kPython,
               {MakeHunk(1, 1, {"+import paddle", "+paddle.enable_compat(scope={\"flashinfer\"})", " import torch"},
                         Layer::kPython, {"python.scoped-enable-compat"})}));
  auto copied =
      MakeFile("tests_paddle/test_norm.py", FileStatus::kCopied, Layer::kPython, Layer::kPython,
               {MakeHunk(5, 5, {"-import torch.profiler", "+import paddle.profiler", " \ttab\tand \"quotes\" \\"},
                         Layer::kPython, {"python.profiler-swap", "python.scoped-enable-compat"})});
  copied.old_path = "tests/test_norm.py";
  copied.similarity = 87;
  a.files.push_back(std::move(copied));
  a.files.push_back(MakeFile("README.md", FileStatus::kModified, Layer::kOther, Layer::kOther,
                             {MakeHunk(3, 3, {"-Fast  kernels", "+Fast kernels", " ", "+中文说明 ✓"}, Layer::kOther, {},
                                       {"formatting-only"})}));
  auto logo = MakeFile("docs/logo.png", FileStatus::kAdded, Layer::kOther, Layer::kOther, {});
  logo.binary = true;
  logo.copied_from = "assets/logo.png";
  a.files.push_back(std::move(logo));
  auto deleted = MakeFile("csrc/unported.cu", FileStatus::kDeleted, Layer::kKernel, Layer::kKernel,
                          {MakeHunk(1, 0, {"-// unported op", "-void f();"}, Layer::kKernel)});
  deleted.truncated = true;
  a.files.push_back(std::move(deleted));
  auto moved = MakeFile("paddle_x/ops.py", FileStatus::kAdded, Layer::kPython, Layer::kPython,
                        {MakeHunk(0, 1, {"+import paddle"}, Layer::kPython, {"python.dim-to-axis"})});
  moved.moved_from = "torch_x/ops.py";
  a.files.push_back(std::move(moved));
  auto renamed = MakeFile("paddle_x/util.py", FileStatus::kRenamed, Layer::kPython, Layer::kPython, {});
  renamed.old_path = "torch_x/util.py";
  renamed.similarity = 100;
  a.files.push_back(std::move(renamed));

  a.layers[static_cast<size_t>(Layer::kKernel)] = {2, 2, 1, 3};
  a.layers[static_cast<size_t>(Layer::kBuild)] = {1, 1, 2, 0};
  a.layers[static_cast<size_t>(Layer::kCppCompat)] = {1, 1, 1, 1};
  a.layers[static_cast<size_t>(Layer::kPython)] = {4, 3, 5, 1};
  a.layers[static_cast<size_t>(Layer::kOther)] = {2, 1, 2, 1};
  a.patterns = {{"build.enable-compat-global", Layer::kBuild, "global enable_compat() in setup.py", 1},
                {"cpp.pd-getinner-bridge", Layer::kCppCompat, "single-API bridge via _PD_GetInner()", 1},
                {"python.scoped-enable-compat", Layer::kPython, "scoped enable_compat(scope=...)", 2},
                {"python.unused-catalogue-entry", Layer::kPython, "counted but in no hunk", 0}};
  a.violations = {{"kernel-edit-unexplained", "csrc/norm.cu", 41, "kernel line changed without a stated reason"},
                  {"formatting-only", "README.md", 3, "whitespace-only change"},
                  {"deleted-upstream-file", "csrc/unported.cu", 0, "upstream file deleted"}};
  a.violations[0].severity = az::Severity::kWarning;
  a.violations[0].snippet = "    out[i] = __fmul_rn(input[i], scale);";
  a.violations[1].severity = az::Severity::kNote;
  a.violations[1].snippet = "Paddle  port";
  a.violations.push_back({"renamed-upstream-file", "paddle_x/", 0, "upstream file renamed: torch_x/ -> paddle_x/"});
  a.violations.back().severity = az::Severity::kWarning;
  a.violations.back().files = {"paddle_x/ops.py", "paddle_x/util.py"};
  az::CompatGap gap;
  gap.path = "csrc/norm.cu";
  gap.line = 201;
  gap.api = "at::cuda::getCurrentCUDAStream";
  gap.bridge = "paddle::experimental::current_stream";
  gap.scope = "norm kernels";
  gap.removal = "when Paddle ships c10 streams";
  gap.issue = "https://github.com/PaddlePaddle/Paddle/issues/1";
  gap.origin = "vendor";
  gap.forwarded = "no";
  gap.applied_upstream = "";
  a.compat_gaps.push_back(gap);
  a.compat_gaps.push_back(az::CompatGap{"csrc/other.cu", 7, "at::foo", "", "", "", "", "", "", "", ""});
  a.moves = {{"copy", "tests/", "tests_paddle/", 10, 7, 3}, {"move", "torch_x/", "paddle_x/", 4, 1, 3}};
  a.notices = {"branch \"paddle\" not found; using default branch", "上游分支自动检测: main"};
  a.migration_branches = {"paddle", "paddle-legacy"};
  return a;
}

inline void CheckSameHunk(const az::Hunk& got, const az::Hunk& want, bool with_lines) {
  CHECK(got.old_start == want.old_start);
  CHECK(got.old_lines == want.old_lines);
  CHECK(got.new_start == want.new_start);
  CHECK(got.new_lines == want.new_lines);
  CHECK(got.header == want.header);
  CHECK(got.layer == want.layer);
  CHECK(got.context == want.context);
  CHECK(got.patterns == want.patterns);
  CHECK(got.violations == want.violations);
  if (!with_lines) {
    CHECK(got.lines.empty());
    return;
  }
  REQUIRE(got.lines.size() == want.lines.size());
  for (size_t i = 0; i < want.lines.size(); ++i) {
    INFO("line " << i);
    CHECK(got.lines[i].origin == want.lines[i].origin);
    CHECK(got.lines[i].text == want.lines[i].text);
    CHECK(got.lines[i].old_lineno == want.lines[i].old_lineno);
    CHECK(got.lines[i].new_lineno == want.lines[i].new_lineno);
  }
}

inline void CheckSameFile(const az::FileChange& got, const az::FileChange& want, bool with_lines) {
  INFO("file " << want.path);
  CHECK(got.path == want.path);
  CHECK(got.old_path == want.old_path);
  CHECK(got.status == want.status);
  CHECK(got.binary == want.binary);
  CHECK(got.truncated == want.truncated);
  CHECK(got.additions == want.additions);
  CHECK(got.deletions == want.deletions);
  CHECK(got.similarity == want.similarity);
  CHECK(got.moved_from == want.moved_from);
  CHECK(got.copied_from == want.copied_from);
  CHECK(got.path_layer == want.path_layer);
  CHECK(got.layer == want.layer);
  REQUIRE(got.hunks.size() == want.hunks.size());
  for (size_t i = 0; i < want.hunks.size(); ++i) {
    INFO("hunk " << i);
    CheckSameHunk(got.hunks[i], want.hunks[i], with_lines);
  }
}

inline void CheckSameAnalysis(const az::Analysis& got, const az::Analysis& want, bool with_lines) {
  CHECK(got.fork.url == want.fork.url);
  CHECK(got.fork.branch == want.fork.branch);
  CHECK(got.fork.sha == want.fork.sha);
  CHECK(got.upstream.url == want.upstream.url);
  CHECK(got.upstream.branch == want.upstream.branch);
  CHECK(got.upstream.sha == want.upstream.sha);
  CHECK(got.merge_base == want.merge_base);
  CHECK(got.base_source == want.base_source);
  REQUIRE(got.base_distance.has_value() == want.base_distance.has_value());
  if (want.base_distance) {
    CHECK(got.base_distance->files == want.base_distance->files);
    CHECK(got.base_distance->lines == want.base_distance->lines);
    CHECK(got.base_distance->commits_scanned == want.base_distance->commits_scanned);
    CHECK(got.base_distance->kept_lines == want.base_distance->kept_lines);
    CHECK(got.base_distance->fork_lines == want.base_distance->fork_lines);
    CHECK(got.base_distance->runner_up == want.base_distance->runner_up);
    CHECK(got.base_distance->runner_up_kept_lines == want.base_distance->runner_up_kept_lines);
    CHECK(got.base_distance->margin_lines == want.base_distance->margin_lines);
    CHECK(got.base_distance->equivalent_commits == want.base_distance->equivalent_commits);
    CHECK(got.base_distance->tie_margin_lines == want.base_distance->tie_margin_lines);
    CHECK(got.base_distance->import_time == want.base_distance->import_time);
    CHECK(got.base_distance->newer_than_import == want.base_distance->newer_than_import);
    CHECK(got.base_distance->confidence == want.base_distance->confidence);
    CHECK(got.base_distance->confidence_reason == want.base_distance->confidence_reason);
  }
  CHECK(got.packages == want.packages);
  CHECK(got.resolution_notices == want.resolution_notices);
  CHECK(got.upstream_branch_choice == want.upstream_branch_choice);
  CHECK(got.ahead == want.ahead);
  CHECK(got.behind == want.behind);
  CHECK(got.style == want.style);
  CHECK(got.style_evidence.compat_hunks == want.style_evidence.compat_hunks);
  CHECK(got.style_evidence.compat_lines == want.style_evidence.compat_lines);
  CHECK(got.style_evidence.native_hunks == want.style_evidence.native_hunks);
  CHECK(got.style_evidence.native_lines == want.style_evidence.native_lines);
  CHECK(got.style_evidence.harness_only == want.style_evidence.harness_only);
  REQUIRE(got.style_evidence.strongest.size() == want.style_evidence.strongest.size());
  for (size_t i = 0; i < want.style_evidence.strongest.size(); ++i) {
    const az::StyleSignal& g = got.style_evidence.strongest[i];
    const az::StyleSignal& w = want.style_evidence.strongest[i];
    CHECK(g.style == w.style);
    CHECK(g.signal == w.signal);
    CHECK(g.path == w.path);
    CHECK(g.line == w.line);
    CHECK(g.weight == w.weight);
  }
  CHECK_FALSE(got.cached);
  CHECK(got.rules_version == want.rules_version);
  for (size_t i = 0; i < want.layers.size(); ++i) {
    INFO("layer " << i);
    CHECK(got.layers[i].files == want.layers[i].files);
    CHECK(got.layers[i].hunks == want.layers[i].hunks);
    CHECK(got.layers[i].additions == want.layers[i].additions);
    CHECK(got.layers[i].deletions == want.layers[i].deletions);
  }
  REQUIRE(got.files.size() == want.files.size());
  for (size_t i = 0; i < want.files.size(); ++i) CheckSameFile(got.files[i], want.files[i], with_lines);
  REQUIRE(got.patterns.size() == want.patterns.size());
  for (size_t i = 0; i < want.patterns.size(); ++i) {
    CHECK(got.patterns[i].id == want.patterns[i].id);
    CHECK(got.patterns[i].layer == want.patterns[i].layer);
    CHECK(got.patterns[i].description == want.patterns[i].description);
    CHECK(got.patterns[i].count == want.patterns[i].count);
  }
  REQUIRE(got.violations.size() == want.violations.size());
  for (size_t i = 0; i < want.violations.size(); ++i) {
    CHECK(got.violations[i].rule == want.violations[i].rule);
    CHECK(got.violations[i].path == want.violations[i].path);
    CHECK(got.violations[i].line == want.violations[i].line);
    CHECK(got.violations[i].message == want.violations[i].message);
    CHECK(got.violations[i].severity == want.violations[i].severity);
    CHECK(got.violations[i].snippet == want.violations[i].snippet);
    CHECK(got.violations[i].files == want.violations[i].files);
  }
  REQUIRE(got.compat_gaps.size() == want.compat_gaps.size());
  for (size_t i = 0; i < want.compat_gaps.size(); ++i) {
    const auto& g = got.compat_gaps[i];
    const auto& w = want.compat_gaps[i];
    CHECK(g.path == w.path);
    CHECK(g.line == w.line);
    CHECK(g.api == w.api);
    CHECK(g.bridge == w.bridge);
    CHECK(g.scope == w.scope);
    CHECK(g.removal == w.removal);
    CHECK(g.issue == w.issue);
    CHECK(g.origin == w.origin);
    CHECK(g.forwarded == w.forwarded);
    CHECK(g.applied_upstream == w.applied_upstream);
  }
  REQUIRE(got.moves.size() == want.moves.size());
  for (size_t i = 0; i < want.moves.size(); ++i) {
    CHECK(got.moves[i].kind == want.moves[i].kind);
    CHECK(got.moves[i].from == want.moves[i].from);
    CHECK(got.moves[i].to == want.moves[i].to);
    CHECK(got.moves[i].files == want.moves[i].files);
    CHECK(got.moves[i].verbatim == want.moves[i].verbatim);
    CHECK(got.moves[i].adapted == want.moves[i].adapted);
  }
  CHECK(got.notices == want.notices);
  CHECK(got.migration_branches == want.migration_branches);
  CHECK(got.created_at == want.created_at);
  CHECK(got.duration_ms == want.duration_ms);
}

// Rows in table, read through a second connection (so it sees only committed data).
inline int64_t CountRows(const std::string& db_path, const std::string& table) {
  auto db = Database::Open(db_path);
  REQUIRE(db.ok());
  auto stmt = db->Prepare("SELECT COUNT(*) FROM " + table);
  REQUIRE(stmt.ok());
  auto row = stmt->Step();
  REQUIRE(row.ok());
  REQUIRE(*row);
  return stmt->ColumnInt64(0);
}

}  // namespace forkscope::storage::testing
