// Drift on real git repositories where upstream moves after the fork was cut: commits touching
// patched files (also through an upstream rename), conflicting and clean edits, an upstream commit
// applying the fork's own change (a redundant hunk), deletions and add/add; every figure exact.
#include "analyzer/drift/drift.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "analyzer/classify/rules.h"
#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

constexpr int64_t kDay = 86400;
constexpr int64_t kClock0 = 1700000000;  // the fixture commit clock; each commit adds an hour

const char* kSetup =
    "import os\n"
    "from setuptools import setup\n"
    "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
    "\n"
    "setup(\n"
    "    name=\"tinyops\",\n"
    "    version=\"0.1.0\",\n"
    "    ext_modules=[CUDAExtension(\"tinyops._C\", [\"csrc/k.cu\"])],\n"
    "    cmdclass={\"build_ext\": BuildExtension},\n"
    ")\n";

std::string OpsPy(const std::string& first, const std::string& last) {
  std::string s = "import torch\n\n\ndef first(x):\n" + first + "\n";
  for (int i = 0; i < 8; ++i)
    s += "\n\ndef helper" + std::to_string(i) + "(x):\n    return x + " + std::to_string(i) + "\n";
  return s + "\n\ndef last(x):\n" + last + "\n";
}
const std::string kFirst = "    return torch.relu(x)";
const std::string kLast = "    return torch.tanh(x)";

std::string UtilPy(const std::string& ceil_body, const std::string& pow2_body) {
  return "\"\"\"Small helpers.\"\"\"\n\nimport math\n\n\ndef ceil_div(a, b):\n" + ceil_body +
         "\n\n\ndef round_up(x, m):\n    return ceil_div(x, m) * m\n\n\ndef is_pow2(n):\n" + pow2_body + "\n";
}
const std::string kCeil = "    return (a + b - 1) // b";
const std::string kCeilFork = "    # Paddle: integer division without the float round trip\n    return -(-a // b)";
const std::string kPow2 = "    return n > 0 and (n & (n - 1)) == 0";
const std::string kPow2Fork = "    return n > 0 and not (n & (n - 1))";

std::string KernelCu(const std::string& scale_line, const std::string& launch_line) {
  std::string s =
      "#include <cuda_runtime.h>\n\n"
      "__global__ void scale_kernel(float* out, const float* in, float s, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) {\n" +
      scale_line + "\n  }\n}\n\n";
  for (int i = 0; i < 6; ++i)
    s += "__device__ float f" + std::to_string(i) + "(float x) { return x * " + std::to_string(i) + "; }\n";
  return s + "\nvoid launch(float* out, const float* in, float s, int n) {\n" + launch_line + "\n}\n";
}
const std::string kScale = "    out[i] = in[i] * s;";
const std::string kScaleFork = "    out[i] = __fmul_rn(in[i], s);";
const std::string kLaunch = "  scale_kernel<<<(n + 255) / 256, 256>>>(out, in, s, n);";

using forkscope::testing::DefaultRules;

// Upstream at its first commit and a fork (branch paddle) that patched four files on top of it.
struct Pair {
  TempDir tmp;
  GitRepo up{tmp.Sub("upstream"), "main"};
  std::string base;
  GitRepo fork = Init();

  GitRepo Init() {
    up.Write("setup.py", kSetup);
    up.Write("pkg/ops.py", OpsPy(kFirst, kLast));
    up.Write("pkg/util.py", UtilPy(kCeil, kPow2));
    up.Write("csrc/k.cu", KernelCu(kScale, kLaunch));
    up.Write("docs/guide.md", "# Guide\n");
    base = up.Commit("tinyops 0.1.0");  // kClock0 + 1h
    GitRepo f = GitRepo::Clone(up.path(), tmp.Sub("fork"));
    f.Checkout("paddle", true);
    f.Write("setup.py", std::string(kSetup).replace(std::string(kSetup).find("from torch"), 0,
                                                    "import paddle\npaddle.enable_compat()\n"));
    f.Write("pkg/ops.py", OpsPy("    return torch.nn.functional.relu(x)", kLast));
    f.Write("pkg/util.py", UtilPy(kCeilFork, kPow2Fork));
    f.Write("csrc/k.cu", KernelCu(kScaleFork, kLaunch));
    f.Commit("Run tinyops on Paddle");  // kClock0 + 2h
    return f;
  }

  Result<DriftReport> Drift(int64_t now) {
    AnalyzeRequest req;
    req.fork_location = fork.path();
    req.upstream_location = up.path();
    req.data_dir = tmp.Sub("data");
    FS_ASSIGN_OR_RETURN(ResolvedPair pair, ResolvePair(req));
    FS_ASSIGN_OR_RETURN(Analysis analysis, AnalyzeResolved(pair, DefaultRules(), req.diff));
    return ComputeDrift(pair, analysis, now);
  }
};

const UpstreamTouch& Touch(const DriftReport& r, size_t i) {
  REQUIRE(i < r.upstream_commits_touching_patched.size());
  return r.upstream_commits_touching_patched[i];
}

TEST_CASE("drift: upstream moves after the fork", "[analyzer][drift]") {
  Pair p;
  GitRepo& up = p.up;
  // Upstream, after the fork was cut:
  up.Write("pkg/ops.py", OpsPy(kFirst, "    return torch.tanh(x) * 2"));  // far from the fork's hunk
  std::string u1 = up.Commit("Scale last");                               // +3h
  up.Write("setup.py", std::string(kSetup).replace(std::string(kSetup).find("CUDAExtension\n"), 13,
                                                   "CUDAExtension, CppExtension"));  // where the fork inserted
  std::string u2 = up.Commit("Import CppExtension");                                 // +4h
  up.Write("pkg/util.py", UtilPy(kCeil, kPow2Fork));                                 // the fork's own second change
  std::string u3 = up.Commit("Simplify is_pow2");                                    // +5h
  up.Move("csrc/k.cu", "csrc/kernels.cu");
  std::string u4 = up.Commit("Rename kernels");  // +6h
  up.Write("csrc/kernels.cu", KernelCu(kScale, "  scale_kernel<<<(n + 511) / 512, 512>>>(out, in, s, n);"));
  std::string u5 = up.Commit("Launch 512 threads");  // +7h, under the new name, far from the fork's hunk
  up.Write("docs/guide.md", "# Guide\n\nBuild with pip.\n");
  std::string u6 = up.Commit("Document the build");  // +8h, a file the fork did not touch

  int64_t base_time = kClock0 + 3600;
  SECTION("every figure") {
    auto r = p.Drift(base_time + 10 * kDay + kDay / 2);
    REQUIRE(r.ok());
    CHECK(r->fork_sha == p.fork.Head());
    CHECK(r->upstream_sha == u6);
    CHECK(r->merge_base == p.base);
    CHECK(r->fork_branch == "paddle");
    CHECK(r->upstream_branch == "main");
    CHECK(r->ahead == 1);
    CHECK(r->behind == 6);
    CHECK(r->merge_base_time == base_time);
    CHECK(r->merge_base_age_days == 10.5);
    CHECK(r->upstream_commits_scanned == 6);
    CHECK(r->computed_at == base_time + 10 * kDay + kDay / 2);

    REQUIRE(r->upstream_commits_touching_patched.size() == 5);
    CHECK(Touch(*r, 0).sha == u5);
    CHECK(Touch(*r, 0).subject == "Launch 512 threads");
    CHECK(Touch(*r, 0).date == kClock0 + 7 * 3600);
    CHECK(Touch(*r, 0).paths == std::vector<std::string>{"csrc/k.cu"});  // the fork's path, not kernels.cu
    CHECK(Touch(*r, 0).layers == std::vector<Layer>{Layer::kKernel});
    CHECK(Touch(*r, 1).sha == u4);
    CHECK(Touch(*r, 1).subject == "Rename kernels");
    CHECK(Touch(*r, 1).paths == std::vector<std::string>{"csrc/k.cu"});
    CHECK(Touch(*r, 2).sha == u3);
    CHECK(Touch(*r, 2).date == kClock0 + 5 * 3600);
    CHECK(Touch(*r, 2).paths == std::vector<std::string>{"pkg/util.py"});
    CHECK(Touch(*r, 2).layers == std::vector<Layer>{Layer::kPython});
    CHECK(Touch(*r, 3).sha == u2);
    CHECK(Touch(*r, 3).paths == std::vector<std::string>{"setup.py"});
    CHECK(Touch(*r, 3).layers == std::vector<Layer>{Layer::kBuild});
    CHECK(Touch(*r, 4).sha == u1);
    CHECK(Touch(*r, 4).subject == "Scale last");
    CHECK(Touch(*r, 4).date == kClock0 + 3 * 3600);
    CHECK(Touch(*r, 4).paths == std::vector<std::string>{"pkg/ops.py"});
    CHECK(Touch(*r, 4).layers == std::vector<Layer>{Layer::kPython});

    // Only setup.py conflicts: ops.py and the renamed kernel merge cleanly, util.py's shared change too.
    REQUIRE(r->predicted_conflicts.size() == 1);
    CHECK(r->predicted_conflicts[0].path == "setup.py");
    CHECK(r->predicted_conflicts[0].layer == Layer::kBuild);

    // util.py's second hunk (@@ -12,4 +13,4 @@) is upstream now; its first hunk is not.
    REQUIRE(r->redundant_hunks.size() == 1);
    CHECK(r->redundant_hunks[0].path == "pkg/util.py");
    CHECK(r->redundant_hunks[0].old_start == 12);
    CHECK(r->redundant_hunks[0].new_start == 13);

    // 10 * 1 conflict + 3 * 5 touching + 1 redundant + 2 * log2(1 + 6) + 10.5 / 30
    CHECK(r->risk == Approx(std::round((26 + 2 * std::log2(7.0) + 0.35) * 100) / 100).margin(1e-9));
    CHECK(r->risk == Approx(31.96).margin(1e-9));
    CHECK(r->notices.empty());
  }
  SECTION("an edit under the new upstream name that conflicts is reported at the fork's path") {
    up.Write("csrc/kernels.cu",
             KernelCu("    out[i] = in[i] * s * 1.0f;", "  scale_kernel<<<(n + 511) / 512, 512>>>(out, in, s, n);"));
    std::string u7 = up.Commit("Keep the scale explicit");
    auto r = p.Drift(base_time);
    REQUIRE(r.ok());
    CHECK(r->behind == 7);
    CHECK(r->merge_base_age_days == 0);
    REQUIRE(r->predicted_conflicts.size() == 2);
    CHECK(r->predicted_conflicts[0].path == "csrc/k.cu");
    CHECK(r->predicted_conflicts[0].layer == Layer::kKernel);
    CHECK(r->predicted_conflicts[1].path == "setup.py");
    REQUIRE(r->upstream_commits_touching_patched.size() == 6);
    CHECK(Touch(*r, 0).sha == u7);
    CHECK(Touch(*r, 0).paths == std::vector<std::string>{"csrc/k.cu"});
  }
  SECTION("walk cut short") {
    AnalyzeRequest req;
    req.fork_location = p.fork.path();
    req.upstream_location = up.path();
    req.data_dir = p.tmp.Sub("data");
    auto pair = ResolvePair(req);
    REQUIRE(pair.ok());
    auto analysis = AnalyzeResolved(*pair, DefaultRules(), req.diff);
    REQUIRE(analysis.ok());
    DriftOptions options;
    options.max_commits = 2;
    auto r = ComputeDrift(*pair, *analysis, base_time, options);
    REQUIRE(r.ok());
    CHECK(r->behind == 6);
    CHECK(r->upstream_commits_scanned == 2);
    REQUIRE(r->upstream_commits_touching_patched.size() == 2);  // the two oldest: u2, u1
    CHECK(Touch(*r, 0).sha == u2);
    CHECK(Touch(*r, 1).sha == u1);
    REQUIRE(r->notices.size() == 1);
    CHECK_THAT(r->notices[0], Catch::Contains("first 2 upstream commits"));
  }
}

TEST_CASE("drift: upstream deletes a patched file and adds one the fork added", "[analyzer][drift]") {
  Pair p;
  p.fork.Write("tests/test_paddle.py", "import paddle\n\n\ndef test_import():\n    import tinyops\n");
  std::string fork_head = p.fork.Commit("Add a Paddle smoke test");  // +3h
  p.up.Remove("pkg/ops.py");
  std::string u1 = p.up.Commit("Drop the Python ops");  // +4h
  p.up.Write("tests/test_paddle.py", "def test_nothing():\n    pass\n");
  std::string u2 = p.up.Commit("Add a placeholder test");   // +5h
  p.up.Write("csrc/k.cu", KernelCu(kScaleFork, kLaunch));   // the fork's kernel change, exactly
  std::string u3 = p.up.Commit("Round the scale in fp32");  // +6h

  auto r = p.Drift(kClock0 + 3600 + 3 * kDay);
  REQUIRE(r.ok());
  CHECK(r->ahead == 2);
  CHECK(r->behind == 3);
  CHECK(r->merge_base_age_days == 3);
  REQUIRE(r->upstream_commits_touching_patched.size() == 3);
  CHECK(Touch(*r, 0).sha == u3);
  CHECK(Touch(*r, 0).paths == std::vector<std::string>{"csrc/k.cu"});
  CHECK(Touch(*r, 1).sha == u2);
  CHECK(Touch(*r, 1).paths == std::vector<std::string>{"tests/test_paddle.py"});
  CHECK(Touch(*r, 1).layers == std::vector<Layer>{Layer::kPython});
  CHECK(Touch(*r, 2).sha == u1);
  CHECK(Touch(*r, 2).paths == std::vector<std::string>{"pkg/ops.py"});
  // modify/delete and add/add conflicts; the identical kernel change merges cleanly.
  REQUIRE(r->predicted_conflicts.size() == 2);
  CHECK(r->predicted_conflicts[0].path == "pkg/ops.py");
  CHECK(r->predicted_conflicts[0].layer == Layer::kPython);
  CHECK(r->predicted_conflicts[1].path == "tests/test_paddle.py");
  CHECK(r->predicted_conflicts[1].layer == Layer::kPython);
  // The kernel hunk is upstream now: its only hunk starts at line 3 on both sides.
  REQUIRE(r->redundant_hunks.size() == 1);
  CHECK(r->redundant_hunks[0].path == "csrc/k.cu");
  CHECK(r->redundant_hunks[0].old_start == 3);
  CHECK(r->redundant_hunks[0].new_start == 3);
}

TEST_CASE("drift: a fork level with upstream has no drift", "[analyzer][drift]") {
  Pair p;
  auto r = p.Drift(kClock0 + 3600 + 30 * kDay);
  REQUIRE(r.ok());
  CHECK(r->ahead == 1);
  CHECK(r->behind == 0);
  CHECK(r->upstream_sha == p.base);
  CHECK(r->merge_base_age_days == 30);
  CHECK(r->upstream_commits_scanned == 0);
  CHECK(r->upstream_commits_touching_patched.empty());
  CHECK(r->predicted_conflicts.empty());
  CHECK(r->redundant_hunks.empty());
  CHECK(r->risk == 1.0);  // age alone: 30 / 30
}

TEST_CASE("drift: a pair without a base is refused", "[analyzer][drift]") {
  ResolvedPair pair;
  pair.header.fork.sha = std::string(40, 'a');
  auto r = ComputeDrift(pair, Analysis{}, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace forkscope::analyzer
