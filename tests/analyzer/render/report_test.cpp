// Tests of analyzer/report.h: the analysis JSON (shape, round trip, malformed input), the Markdown
// report and the text summary, over an Analysis built in code after a compat-style fork.
#include "analyzer/render/report.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

// A hunk from diff lines written as in a patch (" ctx", "-old", "+new"); counts and line numbers
// are computed the way AnalysisFromJson recomputes them.
Hunk MakeHunk(int old_start, int new_start, const std::vector<std::string>& lines, Layer layer,
              std::vector<std::string> patterns = {}, std::vector<std::string> violations = {}) {
  Hunk h;
  h.old_start = old_start;
  h.new_start = new_start;
  h.layer = layer;
  h.patterns = std::move(patterns);
  h.violations = std::move(violations);
  int old_no = old_start, new_no = new_start;
  for (const std::string& s : lines) {
    DiffLine l;
    l.origin = s[0];
    l.text = s.substr(1);
    if (l.origin != '+') l.old_lineno = old_no++, ++h.old_lines;
    if (l.origin != '-') l.new_lineno = new_no++, ++h.new_lines;
    h.lines.push_back(l);
  }
  return h;
}

FileChange MakeFile(std::string path, FileStatus status, Layer layer, std::vector<Hunk> hunks) {
  FileChange f;
  f.path = std::move(path);
  f.status = status;
  f.layer = layer;
  f.path_layer = layer;
  f.hunks = std::move(hunks);
  for (const Hunk& h : f.hunks) f.additions += h.additions(), f.deletions += h.deletions();
  return f;
}

// A compat-style migration of an attention-kernel library, touching every layer.
Analysis MakeAnalysis() {
  Analysis a;
  a.fork = {"https://user:secret@github.com/PFCCLab/flashinfer.git", "paddle",
            "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  a.upstream = {"https://github.com/flashinfer-ai/flashinfer", "main", "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"};
  a.upstream_branch_choice = "default";
  a.merge_base = "3333333ccccccccccccccccccccccccccccccccc";
  a.base_source = analyzer::BaseSource::kMergeBase;
  a.base_distance = BaseDistance{};
  a.base_distance->commits_scanned = 12;
  a.ahead = 7;
  a.behind = 41;
  a.style = MigrationStyle::kCompat;
  a.cached = true;
  a.rules_version = "r-5f3a9c";
  a.created_at = 1714564800;  // 2024-05-01T12:00:00Z
  a.duration_ms = 1834;
  a.migration_branches = {"paddle", "paddle-legacy"};

  FileChange setup = MakeFile(
      "setup.py", FileStatus::kModified, Layer::kBuild,
      {MakeHunk(10, 10,
                {" import os", "+import paddle", "+paddle.enable_compat()", " from torch.utils import cpp_extension"},
                Layer::kBuild, {"enable-compat-build"})});
  setup.hunks[0].header = " import sys";

  FileChange ops = MakeFile("csrc/flashinfer_ops.cu", FileStatus::kModified, Layer::kCppCompat,
                            {MakeHunk(40, 40,
                                      {"   auto s = x.sizes();", "-  auto y = at::empty_like(x);",
                                       "+  auto y = paddle::experimental::empty_like(x._PD_GetInner());"},
                                      Layer::kCppCompat, {"pd-getinner-bridge"})});
  ops.path_layer = Layer::kKernel;
  ops.hunks[0].context = "void run_decode(at::Tensor x)";

  FileChange decode =
      MakeFile("include/flashinfer/attention/decode.cuh", FileStatus::kModified, Layer::kKernel,
               {MakeHunk(120, 120, {"-  int a=b;", "+  int a = b;"}, Layer::kKernel, {}, {"formatting-only"})});

  FileChange core = MakeFile("flashinfer/jit/core.py", FileStatus::kModified, Layer::kPython,
                             {MakeHunk(1, 1, {" import torch", "+import paddle", "+paddle.enable_compat()"},
                                       Layer::kPython, {}, {"global-enable-compat-runtime"})});

  FileChange renamed = MakeFile(
      "tests_paddle/test_batch_decode.py", FileStatus::kRenamed, Layer::kPython,
      {MakeHunk(3, 3, {"-import torch.profiler", "+import paddle.profiler"}, Layer::kPython, {"profiler-swap"})});
  renamed.old_path = "tests/test_batch_decode.py";
  renamed.similarity = 92;

  FileChange moved = MakeFile("paddle_flashinfer/utils.py", FileStatus::kAdded, Layer::kPython,
                              {MakeHunk(0, 1, {"+def f():", "+    return 1"}, Layer::kPython)});
  moved.moved_from = "flashinfer/utils.py";

  FileChange ci =
      MakeFile(".github/workflows/ci.yml", FileStatus::kDeleted, Layer::kBuild,
               {MakeHunk(1, 0, {"-name: ci", "-on: [push]"}, Layer::kBuild, {}, {"deleted-upstream-file"})});

  FileChange logo = MakeFile("docs/logo.png", FileStatus::kModified, Layer::kOther, {});
  logo.binary = true;

  FileChange readme =
      MakeFile("README.md", FileStatus::kModified, Layer::kOther,
               {MakeHunk(1, 1, {" # FlashInfer", "+Paddle: `paddle.enable_compat(scope={\"flashinfer\"})`"},
                         Layer::kOther, {"readme-banner"})});
  a.files = {setup, ops, decode, core, renamed, moved, ci, logo, readme};

  a.layers[static_cast<size_t>(Layer::kKernel)] = {1, 1, 1, 1};
  a.layers[static_cast<size_t>(Layer::kBuild)] = {2, 2, 2, 2};
  a.layers[static_cast<size_t>(Layer::kCppCompat)] = {1, 1, 1, 1};
  a.layers[static_cast<size_t>(Layer::kPython)] = {3, 3, 5, 1};
  a.layers[static_cast<size_t>(Layer::kOther)] = {2, 1, 1, 0};

  a.patterns = {{"enable-compat-build", Layer::kBuild, "global paddle.enable_compat() in a build script", 1},
                {"pd-getinner-bridge", Layer::kCppCompat, "single-API bridge through _PD_GetInner()", 1},
                {"profiler-swap", Layer::kPython, "torch.profiler -> paddle.profiler", 2}};
  a.violations = {
      {"formatting-only", "include/flashinfer/attention/decode.cuh", 120, "whitespace-only change in a kernel"},
      {"global-enable-compat-runtime", "flashinfer/jit/core.py", 2, "global enable_compat() | use scope={...}"},
      {"deleted-upstream-file", ".github/workflows/ci.yml", 0, "upstream CI workflow deleted"}};
  CompatGap with_removal;
  with_removal.path = "csrc/flashinfer_ops.cu";
  with_removal.line = 42;
  with_removal.api = "at::empty_like";
  with_removal.bridge = "paddle::experimental::empty_like";
  with_removal.scope = "decode|prefill";
  with_removal.removal = "Paddle ships at::empty_like";
  with_removal.issue = "https://github.com/PaddlePaddle/Paddle/issues/1";
  CompatGap without_removal;
  without_removal.path = "csrc/flashinfer_ops.cu";
  without_removal.line = 77;
  without_removal.api = "c10::cuda::getCurrentCUDAStream";
  without_removal.bridge = "phi::GPUContext::stream";
  a.compat_gaps = {with_removal, without_removal};
  a.moves = {{"copy", "tests/", "tests_paddle/", 2, 1, 1}};
  a.notices = {"fork default branch is main; analysed paddle", "paddle.compat.enable_torch_proxy() is deprecated"};
  return a;
}

const json& LayerRow(const json& doc, const char* layer) { return doc.at("summary").at("layers").at(layer); }

TEST_CASE("AnalysisToJson writes the top-level keys with their types", "[analyzer][report]") {
  const json doc = AnalysisToJson(MakeAnalysis());
  REQUIRE(doc.is_object());
  CHECK(doc.at("fork") == json({{"url", "https://user:secret@github.com/PFCCLab/flashinfer.git"},
                                {"branch", "paddle"},
                                {"sha", "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}));
  CHECK(doc.at("upstream").at("url") == "https://github.com/flashinfer-ai/flashinfer");
  CHECK(doc.at("upstream").at("branch") == "main");
  CHECK(doc.at("upstream").at("sha").is_string());
  CHECK(doc.at("upstream").at("branch_choice") == "default");
  CHECK(doc.at("merge_base") == "3333333ccccccccccccccccccccccccccccccccc");
  CHECK(doc.at("base_source") == "merge-base");
  CHECK(doc.at("base_distance") == json({{"files", 0},
                                         {"lines", 0},
                                         {"commits_scanned", 12},
                                         {"kept_lines", 0},
                                         {"fork_lines", 0},
                                         {"runner_up", nullptr},
                                         {"runner_up_kept_lines", 0},
                                         {"margin_lines", 0},
                                         {"equivalent_commits", 0},
                                         {"tie_margin_lines", 0},
                                         {"import_time", nullptr},
                                         {"newer_than_import", 0},
                                         {"confidence", nullptr},
                                         {"confidence_reason", nullptr}}));
  CHECK(doc.at("ahead") == 7);
  CHECK(doc.at("behind") == 41);
  CHECK(doc.at("style") == "compat");
  CHECK(doc.at("cached") == true);
  CHECK(doc.at("rules_version") == "r-5f3a9c");
  CHECK(doc.at("created_at") == "2024-05-01T12:00:00Z");
  CHECK(doc.at("duration_ms") == 1834);
  CHECK(doc.at("notices").size() == 2);
  CHECK(doc.at("migration_branches") == json({"paddle", "paddle-legacy"}));
  CHECK(doc.at("packages") == json::array());

  const json& summary = doc.at("summary");
  CHECK(summary.at("files") == 9);
  CHECK(summary.at("hunks") == 8);
  CHECK(summary.at("additions") == 10);
  CHECK(summary.at("deletions") == 5);
  CHECK(LayerRow(doc, "python") == json({{"files", 3}, {"hunks", 3}, {"additions", 5}, {"deletions", 1}}));
  CHECK(LayerRow(doc, "cpp_compat").at("files") == 1);

  REQUIRE(doc.at("patterns").size() == 3);
  CHECK(doc.at("patterns")[2] == json({{"id", "profiler-swap"},
                                       {"layer", "python"},
                                       {"description", "torch.profiler -> paddle.profiler"},
                                       {"count", 2}}));
  REQUIRE(doc.at("violations").size() == 3);
  CHECK(doc.at("violations")[0] == json({{"rule", "formatting-only"},
                                         {"path", "include/flashinfer/attention/decode.cuh"},
                                         {"line", 120},
                                         {"message", "whitespace-only change in a kernel"},
                                         {"message_code", "formatting-only"},
                                         {"message_params", json::object()},
                                         {"severity", "error"},
                                         {"snippet", nullptr},
                                         {"files", json::array()},
                                         {"fingerprint", ViolationFingerprint(MakeAnalysis().violations[0])}}));
  REQUIRE(doc.at("moves").size() == 1);
  CHECK(doc.at("moves")[0] == json({{"kind", "copy"},
                                    {"from", "tests/"},
                                    {"to", "tests_paddle/"},
                                    {"files", 2},
                                    {"verbatim", 1},
                                    {"adapted", 1}}));
}

TEST_CASE("AnalysisToJson writes compat gaps with empty strings as null", "[analyzer][report]") {
  const json gaps = AnalysisToJson(MakeAnalysis()).at("compat_gaps");
  REQUIRE(gaps.size() == 2);
  CHECK(gaps[0].at("removal") == "Paddle ships at::empty_like");
  CHECK(gaps[0].at("scope") == "decode|prefill");
  CHECK(gaps[0].at("line") == 42);
  for (const char* key :
       {"path", "api", "bridge", "scope", "removal", "issue", "origin", "forwarded", "applied_upstream", "line"})
    CHECK(gaps[1].contains(key));
  CHECK(gaps[1].at("api") == "c10::cuda::getCurrentCUDAStream");
  CHECK(gaps[1].at("removal").is_null());
  CHECK(gaps[1].at("scope").is_null());
  CHECK(gaps[1].at("issue").is_null());
  CHECK(gaps[1].at("applied_upstream").is_null());
}

TEST_CASE("AnalysisToJson writes files and hunks", "[analyzer][report]") {
  const Analysis a = MakeAnalysis();
  const json files = AnalysisToJson(a).at("files");
  REQUIRE(files.size() == a.files.size());

  SECTION("a modified file") {
    const json& f = files[1];
    CHECK(f.at("path") == "csrc/flashinfer_ops.cu");
    CHECK(f.at("old_path").is_null());
    CHECK(f.at("status") == "modified");
    CHECK(f.at("layer") == "cpp_compat");
    CHECK(f.at("path_layer") == "kernel");
    CHECK(f.at("binary") == false);
    CHECK(f.at("truncated") == false);
    CHECK(f.at("similarity").is_null());
    CHECK(f.at("moved_from").is_null());
    CHECK(f.at("additions") == 1);
    CHECK(f.at("deletions") == 1);
    REQUIRE(f.at("hunks").size() == 1);
    const json& h = f.at("hunks")[0];
    CHECK(h.at("old_start") == 40);
    CHECK(h.at("old_lines") == 2);
    CHECK(h.at("new_start") == 40);
    CHECK(h.at("new_lines") == 2);
    CHECK(h.at("header") == "");
    CHECK(h.at("layer") == "cpp_compat");
    CHECK(h.at("context") == "void run_decode(at::Tensor x)");
    CHECK(h.at("patterns") == json({"pd-getinner-bridge"}));
    CHECK(h.at("violations") == json::array());
    CHECK_FALSE(h.contains("lines"));
  }
  SECTION("a renamed file carries old_path and similarity") {
    CHECK(files[4].at("status") == "renamed");
    CHECK(files[4].at("old_path") == "tests/test_batch_decode.py");
    CHECK(files[4].at("similarity") == 92);
  }
  SECTION("deleted, binary and paired-by-move files") {
    CHECK(files[6].at("status") == "deleted");
    CHECK(files[6].at("hunks")[0].at("violations") == json({"deleted-upstream-file"}));
    CHECK(files[7].at("binary") == true);
    CHECK(files[7].at("hunks") == json::array());
    CHECK(files[5].at("status") == "added");
    CHECK(files[5].at("moved_from") == "flashinfer/utils.py");
  }
  SECTION("lines only when asked, each starting with its origin") {
    const json with = AnalysisToJson(a, /*with_lines=*/true).at("files")[0].at("hunks")[0].at("lines");
    CHECK(with ==
          json({" import os", "+import paddle", "+paddle.enable_compat()", " from torch.utils import cpp_extension"}));
  }
}

TEST_CASE("AnalysisToJson always writes all five layer keys", "[analyzer][report]") {
  const json doc = AnalysisToJson(Analysis{});
  for (const char* layer : {"kernel", "build", "cpp_compat", "python", "other"}) {
    INFO(layer);
    CHECK(LayerRow(doc, layer) == json({{"files", 0}, {"hunks", 0}, {"additions", 0}, {"deletions", 0}}));
  }
  CHECK(doc.at("summary").at("files") == 0);
  CHECK(doc.at("base_distance").is_null());
  CHECK(doc.at("merge_base").is_null());
  CHECK(doc.at("upstream").at("branch_choice").is_null());
  CHECK(doc.at("created_at") == "1970-01-01T00:00:00Z");
  CHECK(doc.at("files") == json::array());
  CHECK(doc.at("compat_gaps") == json::array());
}

TEST_CASE("AnalysisFromJson inverts AnalysisToJson", "[analyzer][report]") {
  const Analysis a = MakeAnalysis();
  for (bool with_lines : {false, true}) {
    INFO("with_lines " << with_lines);
    const json doc = AnalysisToJson(a, with_lines);
    const Result<Analysis> back = AnalysisFromJson(doc);
    REQUIRE(back.ok());
    CHECK(AnalysisToJson(*back, with_lines) == doc);
    CHECK(AnalysisToJson(*back, with_lines).dump() == doc.dump());
    CHECK(back->created_at == a.created_at);
    CHECK(back->upstream_branch_choice == "default");
    CHECK(back->compat_gaps[1].removal.empty());
    REQUIRE(back->base_distance.has_value());
    CHECK(back->base_distance->commits_scanned == 12);
  }

  SECTION("line numbers are recomputed from the hunk starts") {
    const Result<Analysis> back = AnalysisFromJson(AnalysisToJson(a, /*with_lines=*/true));
    REQUIRE(back.ok());
    for (size_t f = 0; f < a.files.size(); ++f)
      for (size_t h = 0; h < a.files[f].hunks.size(); ++h) {
        const auto& want = a.files[f].hunks[h].lines;
        const auto& got = back->files[f].hunks[h].lines;
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < want.size(); ++i) {
          CHECK(got[i].origin == want[i].origin);
          CHECK(got[i].text == want[i].text);
          CHECK(got[i].old_lineno == want[i].old_lineno);
          CHECK(got[i].new_lineno == want[i].new_lineno);
        }
      }
    const auto& setup = back->files[0].hunks[0].lines;
    CHECK(setup[1].old_lineno == -1);
    CHECK(setup[1].new_lineno == 11);
    CHECK(setup[3].old_lineno == 11);
    CHECK(setup[3].new_lineno == 13);
  }
  SECTION("an empty analysis and a negative time") {
    Analysis empty;
    empty.created_at = -86401;
    const json doc = AnalysisToJson(empty);
    CHECK(doc.at("created_at") == "1969-12-30T23:59:59Z");
    const Result<Analysis> back = AnalysisFromJson(doc);
    REQUIRE(back.ok());
    CHECK(back->created_at == -86401);
    CHECK_FALSE(back->base_distance.has_value());
    CHECK(AnalysisToJson(*back) == doc);
  }
}

TEST_CASE("AnalysisToJson replaces invalid UTF-8 so the document always dumps", "[analyzer][report]") {
  Analysis a = MakeAnalysis();
  a.files[0].hunks[0].lines[1].text = "caf\xE9 \xFF";
  const json doc = AnalysisToJson(a, /*with_lines=*/true);
  std::string dumped;
  CHECK_NOTHROW(dumped = doc.dump());
  CHECK(doc.at("files")[0].at("hunks")[0].at("lines")[1] == "+caf\xEF\xBF\xBD \xEF\xBF\xBD");
  const Result<Analysis> back = AnalysisFromJson(json::parse(dumped, nullptr, false));
  REQUIRE(back.ok());
  CHECK(AnalysisToJson(*back, true) == doc);
}

// The error of AnalysisFromJson on doc, which must be InvalidArgument.
std::string ErrorOf(const json& doc) {
  Result<Analysis> r = Analysis{};
  REQUIRE_NOTHROW(r = AnalysisFromJson(doc));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST_CASE("AnalysisFromJson names the first missing or ill-typed key", "[analyzer][report]") {
  json doc = AnalysisToJson(MakeAnalysis(), /*with_lines=*/true);

  SECTION("missing files") {
    doc.erase("files");
    CHECK(ErrorOf(doc) == "analysis json: missing key 'files'");
  }
  SECTION("ahead as a string") {
    doc["ahead"] = "7";
    CHECK(ErrorOf(doc) == "analysis json: key 'ahead' must be an integer");
  }
  SECTION("not an object") {
    CHECK_THAT(ErrorOf(json::array()), Catch::Contains("must be an object"));
    CHECK_THAT(ErrorOf(json::parse("{not json", nullptr, false)), Catch::Contains("must be an object"));
  }
  SECTION("nested keys are named by their path") {
    doc["files"][1]["hunks"][0]["layer"] = "gpu";
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'files[1].hunks[0].layer'"));
  }
  SECTION("a missing layer row") {
    doc["summary"]["layers"].erase("other");
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'summary.layers.other'"));
  }
  SECTION("a line without its origin") {
    doc["files"][0]["hunks"][0]["lines"][2] = "";
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'files[0].hunks[0].lines[2]'"));
  }
  SECTION("ill-typed values") {
    doc["fork"]["sha"] = 5;
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'fork.sha'"));
    doc = AnalysisToJson(MakeAnalysis());
    doc["cached"] = "yes";
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'cached'"));
    doc = AnalysisToJson(MakeAnalysis());
    doc["compat_gaps"][0]["removal"] = 3;
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'compat_gaps[0].removal'"));
    doc = AnalysisToJson(MakeAnalysis());
    doc["files"][0]["additions"] = 1.5;
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'files[0].additions'"));
    doc = AnalysisToJson(MakeAnalysis());
    doc["behind"] = 1LL << 40;
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'behind'"));
    doc = AnalysisToJson(MakeAnalysis());
    doc["style"] = "hybrid";
    CHECK_THAT(ErrorOf(doc), Catch::Contains("'style'"));
  }
  SECTION("bad times") {
    for (const char* when : {"2024-02-30T00:00:00Z", "2024-05-01 12:00:00", "2024-05-01T12:00:00+01:00", ""}) {
      INFO(when);
      doc["created_at"] = when;
      CHECK_THAT(ErrorOf(doc), Catch::Contains("'created_at'"));
    }
  }
}

TEST_CASE("RenderMarkdown writes the report a maintainer pastes into a pull request", "[analyzer][report]") {
  const std::string md = RenderMarkdown(MakeAnalysis());
  INFO(md);

  SECTION("title and header table") {
    CHECK_THAT(md, Catch::StartsWith("# Paddle migration: PFCCLab/flashinfer@paddle → flashinfer-ai/flashinfer@main"));
    CHECK_THAT(md,
               Catch::Contains("| Fork | https://github.com/PFCCLab/flashinfer.git — branch `paddle` at `1111111` |"));
    CHECK_THAT(md, Catch::Contains("(upstream default branch) at `2222222`"));
    CHECK_THAT(md, Catch::Contains("| Merge-base | `3333333` |"));
    CHECK_THAT(md, Catch::Contains("| Ahead / behind | 7 ahead, 41 behind |"));
    CHECK_THAT(md, Catch::Contains("| Migration style | compat"));
    CHECK_THAT(md, Catch::Contains("| Rules version | `r-5f3a9c` |"));
    CHECK_THAT(md, Catch::Contains("| Cached | yes |"));
    CHECK(md.find("secret") == std::string::npos);
  }
  SECTION("sections in order") {
    size_t at = 0;
    // What to act on first, the long file tables last and folded.
    for (const char* heading :
         {"## Summary", "## Notices", "## Minimal-modification violations", "## Validation path",
          "## Compat-gap workarounds", "## Patterns", "## Directory moves and copies", "## Changed files by layer",
          "<details>\n<summary>Every changed file, by layer</summary>\n\n", "### kernel — ", "</details>"}) {
      INFO(heading);
      const size_t found = md.find(heading);
      REQUIRE(found != std::string::npos);
      CHECK(found >= at);
      at = found;
    }
  }
  SECTION("changed files by layer") {
    CHECK_THAT(md, Catch::Contains("9 files changed; everything else matches upstream at `3333333`."));
    CHECK_THAT(md, Catch::Contains("### kernel — framework-independent kernels and algorithms"));
    CHECK_THAT(md, Catch::Contains("### cpp_compat — C++ compat API and operator registration"));
    CHECK_THAT(md, Catch::Contains("| `setup.py` | modified | +2 / −0 | `enable-compat-build` |"));
    CHECK_THAT(
        md, Catch::Contains("| `tests/test_batch_decode.py` → `tests_paddle/test_batch_decode.py` | renamed (92%) |"));
    CHECK_THAT(md, Catch::Contains("| `docs/logo.png` | modified | binary | — |"));
    CHECK_THAT(md, Catch::Contains("| `.github/workflows/ci.yml` | deleted | +0 / −2 |"));
    CHECK_THAT(md, Catch::Contains("(moved from `flashinfer/utils.py`)"));
  }
  SECTION("the summary: size, findings by severity, gaps") {
    CHECK_THAT(md, Catch::Contains("## Summary\n\n9 files changed (+10 / −5); "));
    CHECK_THAT(md, Catch::Contains(" compat-gap workarounds (1 without a removal condition).\n\n| Layer |"));
  }
  SECTION("per-layer summary rows") {
    CHECK_THAT(md, Catch::Contains("| python — Python wrappers, runtime glue and tests | 3 | 3 | 5 | 1 |"));
    CHECK_THAT(md, Catch::Contains("| build — build and packaging | 2 | 2 | 2 | 2 |"));
    CHECK_THAT(md, Catch::Contains("| **total** | 9 | 8 | 10 | 5 |"));
  }
  SECTION("patterns, violations and compat gaps") {
    CHECK_THAT(md, Catch::Contains("| `profiler-swap` | python | 2 | torch.profiler -> paddle.profiler |"));
    CHECK_THAT(md, Catch::Contains("| `formatting-only` | `include/flashinfer/attention/decode.cuh:120` | "
                                   "whitespace-only change in a kernel |"));
    CHECK_THAT(md, Catch::Contains("| `deleted-upstream-file` | `.github/workflows/ci.yml` |"));
    CHECK_THAT(md, Catch::Contains("global enable_compat() \\| use scope={...}"));
    CHECK_THAT(
        md, Catch::Contains("| `at::empty_like` | `paddle::experimental::empty_like` | `csrc/flashinfer_ops.cu:42` | "
                            "decode\\|prefill | Paddle ships at::empty_like |"));
    CHECK_THAT(md, Catch::Contains("| `c10::cuda::getCurrentCUDAStream` | `phi::GPUContext::stream` | "
                                   "`csrc/flashinfer_ops.cu:77` | — | **missing** | — |"));
    CHECK_THAT(md, Catch::Contains("1 of 2 lack a removal condition"));
    CHECK_THAT(md, Catch::Contains("| copy | `tests/` | `tests_paddle/` | 2 | 1 | 1 |"));
    CHECK_THAT(md, Catch::Contains("- paddle.compat.enable_torch_proxy() is deprecated"));
  }
  SECTION("validation path") {
    CHECK_THAT(md, Catch::Contains("- [ ] **1. Build**: `pip install -e . --no-build-isolation`"));
    CHECK_THAT(md, Catch::Contains(
                       "`python -c \"import paddle; paddle.enable_compat(scope={'flashinfer'}); import flashinfer\"`"));
    CHECK_THAT(md,
               Catch::Contains("- [ ] **3. Minimal functional test**: `pytest tests_paddle/test_batch_decode.py -x`"));
    CHECK_THAT(md, Catch::Contains("- [ ] **4. Runtime comparison against upstream**"));
    CHECK_THAT(md, Catch::Contains("first diverging call"));
  }
}

TEST_CASE("RenderMarkdown on a fork with nothing to report", "[analyzer][report]") {
  Analysis a;
  a.fork = {"https://github.com/PFCCLab/x", "paddle", "abcdef0123"};
  a.upstream = {"https://github.com/up/x", "main", "fedcba9876"};
  const std::string md = RenderMarkdown(a);
  INFO(md);
  CHECK_THAT(md, Catch::Contains("0 files changed; everything else matches upstream at `fedcba9`."));
  CHECK_THAT(md, Catch::Contains("| kernel — framework-independent kernels and algorithms | 0 | 0 | 0 | 0 |"));
  CHECK_THAT(md, Catch::Contains("## Minimal-modification violations\n\nNone."));
  CHECK_THAT(md, Catch::Contains("## Compat-gap workarounds\n\nNone."));
  CHECK(md.find("## Directory moves and copies") == std::string::npos);
  CHECK_THAT(md, Catch::Contains("`python -c \"import <package>\"`"));
  CHECK_THAT(md, Catch::Contains("no test file changed"));
  CHECK_THAT(md, Catch::Contains("| Migration style | none (no Paddle migration found) |"));

  SECTION("scp-like and local URLs in the title: names, never paths") {
    a.fork.url = "git@github.com:PFCCLab/x.git";
    a.upstream.url = "/tmp/fixtures/upstream";
    CHECK_THAT(RenderMarkdown(a), Catch::StartsWith("# Paddle migration: PFCCLab/x@paddle → upstream@main\n"));
    a.fork.url = "/srv/forks/fastops-paddle.git/";
    a.upstream.url = "file:///srv/mirrors/fastops/.git";
    CHECK_THAT(RenderMarkdown(a), Catch::StartsWith("# Paddle migration: fastops-paddle@paddle → fastops@main\n"));
    CHECK_THAT(RenderMarkdown(a, "fastops-native"), Catch::StartsWith("# Paddle migration: fastops-native@paddle → "));
  }
  CHECK(md.find("## Notices") == std::string::npos);  // none to give
  CHECK(md.find("<details>") == std::string::npos);   // no file to list
}

TEST_CASE("RenderText writes a short summary with the per-layer table", "[analyzer][report]") {
  const std::string text = RenderText(MakeAnalysis());
  INFO(text);
  CHECK_THAT(text, Catch::StartsWith("fork paddle@1111111 vs upstream main@2222222\n"));
  CHECK_THAT(text, Catch::Contains("merge-base 3333333 (merge-base), 7 ahead, 41 behind, style compat, cached"));
  CHECK_THAT(text, Catch::Contains("  layer       files  hunks       +       -\n"));
  CHECK_THAT(text, Catch::Contains("  kernel          1      1       1       1\n"));
  CHECK_THAT(text, Catch::Contains("  cpp_compat      1      1       1       1\n"));
  CHECK_THAT(text, Catch::Contains("  python          3      3       5       1\n"));
  CHECK_THAT(text, Catch::Contains("  total           9      8      10       5\n"));
  CHECK_THAT(text, Catch::Contains("patterns: profiler-swap ×2, enable-compat-build ×1, pd-getinner-bridge ×1"));
  CHECK_THAT(text, Catch::Contains("violations: formatting-only ×1, global-enable-compat-runtime ×1"));
  CHECK_THAT(text, Catch::Contains("compat gaps: 2 (1 without removal condition)"));
  CHECK_THAT(text, Catch::Contains("note: fork default branch is main; analysed paddle\n"));
}

}  // namespace
}  // namespace forkscope::analyzer
