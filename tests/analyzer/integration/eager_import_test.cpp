// The eager-import lint on packages parsed by the real helper process (python3 + the shipped
// analyzer/rules/python_ast_scan.py): each defect the guide names, the exceptions it allows, the scope.
#include "analyzer/integration/eager_import.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <thread>

#include "tests/support/fixtures.h"
#include "tests/support/rules.h"

namespace forkscope::analyzer::integration {
namespace {

using forkscope::testing::DefaultRules;

const RulesData& Data() { return DefaultRules().data(); }

EagerImportReport Lint(const std::vector<PythonFile>& files, const std::vector<std::string>& extra = {}) {
  auto r = LintPythonPackages(Data(), files, extra);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

std::vector<const Violation*> Findings(const EagerImportReport& r, const std::string& rule) {
  std::vector<const Violation*> out;
  for (const auto& v : r.violations)
    if (v.rule == rule) out.push_back(&v);
  return out;
}

TEST_CASE("a torch module no __init__ import reaches is eager-import-missing, with the import that reaches it",
          "[analyzer][integration][eager]") {
  auto r = Lint({{"custom_op/__init__.py", "\"\"\"no eager import of submodule\"\"\"\n"},
                 {"custom_op/submodule.py", "import torch\n\n\ndef fn():\n    return torch.ones(1)\n"},
                 {"custom_op/plain.py", "import os\n"}});
  REQUIRE(r.packages.size() == 1);
  CHECK(r.packages[0].name == "custom_op");
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "custom_op/submodule.py");
  CHECK(missing[0]->line == 0);
  CHECK(missing[0]->severity == Severity::kError);
  CHECK(missing[0]->message.find("`from . import submodule` in custom_op/__init__.py") != std::string::npos);
  // plain.py imports no torch: nothing to say about it.
  CHECK(r.violations.size() == 1);
  // Nothing loaded imports torch yet: the scope is empty until the fix.
  CHECK(r.needed_scope.empty());

  SECTION("the fix: __init__ imports it, and the package joins the needed scope") {
    auto fixed = Lint({{"custom_op/__init__.py", "from . import submodule\n"},
                       {"custom_op/submodule.py", "import torch\n"},
                       {"custom_op/plain.py", "import os\n"}});
    CHECK(fixed.violations.empty());
    CHECK(fixed.needed_scope == std::vector<std::string>{"custom_op"});
    CHECK(fixed.loaded_modules == 2);
  }
}

TEST_CASE("a module importing a torch module of the package, or a proxy-sensitive package, needs the proxy too",
          "[analyzer][integration][eager]") {
  auto r = Lint({{"lib/__init__.py", "from lib import kernels\n"},
                 {"lib/kernels.py", "import triton\nimport triton.language as tl\n"},
                 {"lib/wrappers.py", "from lib.core import run\n"},
                 {"lib/core.py", "from torch import Tensor\n"}});
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 2);  // core imports torch, wrappers imports core; kernels is reached
  CHECK(missing[0]->path == "lib/core.py");
  CHECK(missing[1]->path == "lib/wrappers.py");
  CHECK(r.needed_scope == std::vector<std::string>{"lib", "triton"});
}

TEST_CASE("an unloaded subpackage is one finding listing its torch modules", "[analyzer][integration][eager]") {
  auto r = Lint({{"src/pkg/__init__.py", "from .ops import add\n"},
                 {"src/pkg/ops.py", "import torch\n\ndef add(a, b):\n    return a + b\n"},
                 {"src/pkg/layers/__init__.py", "from .attn import Attention\n"},
                 {"src/pkg/layers/attn.py", "import torch.nn as nn\n\nclass Attention(nn.Module):\n    pass\n"},
                 {"src/pkg/layers/mlp.py", "import torch\n"},
                 {"tests/test_pkg.py", "import torch\n"}});
  REQUIRE(r.packages.size() == 1);
  CHECK(r.packages[0].dir == "src/pkg/");
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "src/pkg/layers/");
  CHECK(missing[0]->files ==
        std::vector<std::string>{"src/pkg/layers/__init__.py", "src/pkg/layers/attn.py", "src/pkg/layers/mlp.py"});
  CHECK(missing[0]->message.find("pkg.layers (3 modules importing torch)") != std::string::npos);
  CHECK(missing[0]->message.find("`from . import layers` in src/pkg/__init__.py") != std::string::npos);
}

TEST_CASE("import torch inside a function is function-level-torch-import at its line",
          "[analyzer][integration][eager]") {
  const std::string sub =
      "import os\n"
      "\n"
      "\n"
      "def fn():\n"
      "    import torch\n"
      "    return torch.zeros(1)\n"
      "\n"
      "\n"
      "class Layer:\n"
      "    def forward(self):\n"
      "        from custom_op.heavy import run  # noqa: F401\n"
      "        return run()\n"
      "\n"
      "\n"
      "def light():\n"
      "    import json\n"
      "    from custom_op.loaded import ready  # already loaded inside the guard: a no-op\n"
      "    return json, ready\n";
  auto r = Lint({{"custom_op/__init__.py", "from . import submodule, loaded\n"},
                 {"custom_op/loaded.py", "import torch\n\nready = True\n"},
                 {"custom_op/submodule.py", sub},
                 {"custom_op/heavy.py", "import torch\n\ndef run():\n    return torch\n"}});
  auto lazy = Findings(r, "function-level-torch-import");
  REQUIRE(lazy.size() == 2);
  CHECK(lazy[0]->path == "custom_op/submodule.py");
  CHECK(lazy[0]->line == 5);
  CHECK(lazy[0]->snippet == "    import torch");
  CHECK(lazy[0]->severity == Severity::kError);
  CHECK(lazy[0]->message.find("`torch` imported in fn()") != std::string::npos);
  // A torch module of the package imported in a method; a lint pragma is no reason.
  CHECK(lazy[1]->line == 11);
  CHECK(lazy[1]->severity == Severity::kError);
  CHECK(lazy[1]->message.find("custom_op.heavy") != std::string::npos);
  // heavy.py is reached only from inside a function: it loads outside the guard.
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "custom_op/heavy.py");
}

TEST_CASE("a circular-import excuse is no exception; a documented lazy import is a note",
          "[analyzer][integration][eager]") {
  const std::string sub =
      "def conv(x):\n"
      "    # Import here to avoid circular dependency\n"
      "    from custom_op.ops import conv1d\n"
      "    return conv1d(x)\n"
      "\n"
      "\n"
      "def reflect():\n"
      "    # cutlass.torch reflects torch.device when it loads, which the compat proxy breaks; only\n"
      "    # reflect() (the CuTe DSL export path) needs it. Remove when the proxy supports reflection.\n"
      "    import torch\n"
      "    return torch.device\n"
      "\n"
      "\n"
      "def reason_only():\n"
      "    import torch  # loaded late to keep start-up fast\n"
      "    return torch\n";
  // ops is loaded by nothing but conv(): the lazy import is what loads it.
  auto r = Lint({{"custom_op/__init__.py", "from . import sub\n"},
                 {"custom_op/ops.py", "import torch\n\ndef conv1d(x):\n    return x\n"},
                 {"custom_op/sub.py", sub}});
  auto lazy = Findings(r, "function-level-torch-import");
  REQUIRE(lazy.size() == 3);
  CHECK(lazy[0]->line == 3);
  CHECK(lazy[0]->severity == Severity::kError);
  CHECK(lazy[0]->message.find("fixed by import order") != std::string::npos);
  CHECK(lazy[1]->line == 10);
  CHECK(lazy[1]->severity == Severity::kNote);
  CHECK(lazy[1]->message.find("documented exception") != std::string::npos);
  CHECK(lazy[1]->message.find("state the call path") == std::string::npos);
  CHECK(lazy[2]->line == 15);
  CHECK(lazy[2]->severity == Severity::kNote);
  CHECK(lazy[2]->message.find("state the call path that triggers it and when it can be removed") != std::string::npos);
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "custom_op/ops.py");
}

// The helper walks only statement lists in a file that names no call that imports (python_ast_scan.py,
// IMPORTING_CALLS) and reads comments only near a '#': the same findings either way.
TEST_CASE("imports nested in every statement form are found, with or without a call that imports in the file",
          "[analyzer][integration][eager]") {
  const std::string body =
      "def a():\n"
      "    try:\n"
      "        import torch\n"  // 3
      "    except ImportError:\n"
      "        import torch.nn\n"  // 5
      "    else:\n"
      "        pass\n"
      "    finally:\n"
      "        import torch.cuda\n"  // 9
      "\n"
      "\n"
      "async def b(xs):\n"
      "    for x in xs:\n"
      "        with open(x) as f:\n"
      "            import torch.fx\n"  // 15
      "    else:\n"
      "        while xs:\n"
      "            import torch.optim\n"  // 18
      "    match xs:\n"
      "        case [first]:\n"
      "            import torch.utils\n"  // 21
      "\n"
      "\n"
      "class C:\n"
      "    def m(self):\n"
      "        if self:\n"
      "            def inner():\n"
      "                x = \"\"\"\n"
      "# a string's line, not a comment\"\"\"\n"
      "                import torch.autograd\n"  // 30
      "            return inner\n"
      "\n"
      "\n"
      "def d():\n"
      "    # torch.distributed breaks the proxy when it loads; only d() needs it. Remove when fixed.\n"
      "    import torch.distributed\n"  // 36
      "    return s  # import torch here is text in a comment\n";
  const std::string with_call = body +
                                "\n"
                                "\n"
                                "def e():\n"
                                "    import importlib\n"
                                "    return importlib.import_module('json')\n";
  for (const std::string& sub : {body, with_call}) {
    auto r = Lint({{"custom_op/__init__.py", "from . import sub\n"}, {"custom_op/sub.py", sub}});
    auto lazy = Findings(r, "function-level-torch-import");
    std::vector<int> lines;
    for (const auto* v : lazy) lines.push_back(v->line);
    CHECK(lines == std::vector<int>{3, 5, 9, 15, 18, 21, 30, 36});
    REQUIRE(lazy.size() == 8);
    CHECK(lazy[6]->severity == Severity::kError);  // the '#' line above it is in a string
    CHECK(lazy[7]->severity == Severity::kNote);   // the comment block above it gives the reason
  }
}

TEST_CASE("a circular import fixed by import order passes", "[analyzer][integration][eager]") {
  // ops and modules import each other at module level; __init__ orders them so both load.
  auto r = Lint({{"fla/__init__.py",
                  "# initialize FLA ops before the convolution backend to avoid the modules/ops import cycle.\n"
                  "# isort: off\n"
                  "from fla.ops.cp import FLACPContext\n"
                  "from fla.modules.conv import causal_conv1d\n"
                  "# isort: on\n"},
                 {"fla/ops/__init__.py", ""},
                 {"fla/ops/cp.py", "import torch\n\nclass FLACPContext:\n    pass\n"},
                 {"fla/modules/__init__.py", ""},
                 {"fla/modules/conv.py",
                  "import torch\nfrom fla.ops.cp import FLACPContext\n\ndef causal_conv1d(x):\n    return x\n"},
                 {"fla/ops/uses_modules.py", "from fla.modules.conv import causal_conv1d\n"}});
  // uses_modules closes the cycle but nothing loads it: that is the one finding.
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "fla/ops/uses_modules.py");
  CHECK(Findings(r, "function-level-torch-import").empty());
  CHECK(Findings(r, "lazy-loader").empty());

  auto fixed =
      Lint({{"fla/__init__.py", "from fla.ops.cp import FLACPContext\nfrom fla.modules.conv import causal_conv1d\n"},
            {"fla/ops/__init__.py", "from . import uses_modules\n"},
            {"fla/ops/cp.py", "import torch\n"},
            {"fla/modules/__init__.py", ""},
            {"fla/modules/conv.py", "import torch\nfrom fla.ops.cp import FLACPContext\n"},
            {"fla/ops/uses_modules.py", "from fla.modules.conv import causal_conv1d\n"}});
  CHECK(fixed.violations.empty());
  CHECK(fixed.needed_scope == std::vector<std::string>{"fla"});
}

TEST_CASE("module __getattr__ loaders, import_module in functions and lazy_loader are lazy-loader",
          "[analyzer][integration][eager]") {
  const std::string init =
      "import importlib\n"
      "import lazy_loader as lazy\n"
      "\n"
      "from . import eager  # eager: loaded now\n"
      "_names = importlib.import_module('custom_op.configs')\n"
      "\n"
      "__getattr__, __dir__, __all__ = lazy.attach(__name__, submodules=['late'])\n"
      "\n"
      "\n"
      "def __getattr__(name):\n"
      "    import importlib\n"
      "    return importlib.import_module('.' + name, __name__)\n"
      "\n"
      "\n"
      "def load_backend(kind):\n"
      "    return importlib.import_module(f'custom_op.backends.{kind}')\n";
  auto r = Lint({{"custom_op/__init__.py", init},
                 {"custom_op/eager.py", "import torch\n"},
                 {"custom_op/configs.py", "import torch\n"},
                 {"custom_op/late.py", "import os\n"}});
  auto loaders = Findings(r, "lazy-loader");
  REQUIRE(loaders.size() == 3);
  CHECK(loaders[0]->line == 7);   // lazy.attach
  CHECK(loaders[1]->line == 10);  // def __getattr__
  CHECK(loaders[1]->message.find("__getattr__") != std::string::npos);
  CHECK(loaders[2]->line == 16);  // import_module with a computed name
  // The module-level import_module('custom_op.configs') is an eager import: configs is loaded.
  CHECK(Findings(r, "eager-import-missing").empty());
  // The import inside __getattr__ is its loader's finding, not a second one.
  CHECK(Findings(r, "function-level-torch-import").empty());
}

TEST_CASE("imports under TYPE_CHECKING never run; class bodies and decorators run at load",
          "[analyzer][integration][eager]") {
  auto r = Lint({{"p/__init__.py",
                  "from typing import TYPE_CHECKING\n"
                  "if TYPE_CHECKING:\n"
                  "    from p.heavy import Model\n"
                  "class Holder:\n"
                  "    from p import light\n"},
                 {"p/heavy.py", "import torch\n"},
                 {"p/light.py", "import triton\n"}});
  auto missing = Findings(r, "eager-import-missing");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->path == "p/heavy.py");
  CHECK(r.needed_scope == std::vector<std::string>{"p", "triton"});
}

TEST_CASE("other registered forks' packages count as proxy-sensitive", "[analyzer][integration][eager]") {
  std::vector<PythonFile> files = {{"sonicmoe/__init__.py", "from .moe import MoE\n"},
                                   {"sonicmoe/moe.py", "import mylib.gemm\nimport triton\n"}};
  // moe imports triton, which imports torch: sonicmoe needs the proxy through it.
  CHECK(Lint(files).needed_scope == std::vector<std::string>{"sonicmoe", "triton"});
  CHECK(Lint(files, {"mylib"}).needed_scope == std::vector<std::string>{"sonicmoe", "mylib", "triton"});
}

TEST_CASE("a file that does not parse is a notice, not a finding; no package is no report",
          "[analyzer][integration][eager]") {
  auto r = Lint({{"pkg/__init__.py", "from . import broken\n"}, {"pkg/broken.py", "def f(:\n    import torch\n"}});
  CHECK(r.violations.empty());
  REQUIRE(r.notices.size() == 1);
  CHECK(r.notices[0].find("pkg/broken.py was not parsed: SyntaxError") != std::string::npos);
  auto none = Lint({{"setup.py", "import torch\n"}, {"tests/__init__.py", ""}, {"tests/test_x.py", "import torch\n"}});
  CHECK(none.packages.empty());
  CHECK(none.violations.empty());
}

TEST_CASE("python3 missing is a clear error; the helper never runs repository code", "[analyzer][integration][eager]") {
  PythonScanOptions scan;
  scan.python = "/nonexistent/python3";
  auto r = LintPythonPackages(Data(), {{"p/__init__.py", "import torch\n"}}, {}, scan);
  REQUIRE(!r.ok());
  CHECK(r.status().code() == StatusCode::kFailedPrecondition);
  CHECK(r.status().message().find("install python3") != std::string::npos);

  // A module whose import would write a file: parsing it writes nothing.
  testing::TempDir tmp;
  const std::string marker = tmp.Sub("executed");
  auto parsed = LintPythonPackages(
      Data(), {{"p/__init__.py", "open(" + std::string("'") + marker + "', 'w').write('x')\nimport torch\n"}});
  REQUIRE(parsed.ok());
  CHECK(!std::filesystem::exists(marker));
}

TEST_CASE("the rules decide severities and which checks run", "[analyzer][integration][eager]") {
  std::string text = forkscope::testing::ReadFile(FORKSCOPE_SOURCE_DIR "/analyzer/rules/default_rules.json");
  const std::string from =
      "{\"id\": \"function-level-torch-import\", \"check\": \"function-level-torch-import\", \"severity\": \"error\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(),
               "{\"id\": \"function-level-torch-import\", \"check\": \"function-level-torch-import\", \"severity\": "
               "\"warning\"");
  auto rules = Rules::FromJson(text, "<test>");
  REQUIRE(rules.ok());
  auto r = LintPythonPackages(rules->data(), {{"p/__init__.py", "def f():\n    import torch\n"}});
  REQUIRE(r.ok());
  REQUIRE(r->violations.size() == 1);
  CHECK(r->violations[0].severity == Severity::kWarning);

  auto bad = Rules::FromJson(R"({"eager_import": {"documented": "("}})", "<bad>");
  CHECK(!bad.ok());
}

TEST_CASE("the long-lived helper: one process for many calls and threads, replaced when it dies",
          "[analyzer][integration][eager]") {
  const std::vector<PythonFile> files = {{"p/__init__.py", "from . import m\n"}, {"p/m.py", "import torch\n"}};
  REQUIRE(LintPythonPackages(Data(), files).ok());
  const int pid = PythonHelperPid();
  REQUIRE(pid > 0);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto r = LintPythonPackages(Data(), files);
        if (r.ok() && r->needed_scope == std::vector<std::string>{"p"}) ++ok;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(ok == 20);
  CHECK(PythonHelperPid() == pid);
  // Killed between two calls (out of memory, an operator): the next call gets a fresh helper.
  REQUIRE(::kill(pid, SIGKILL) == 0);
  auto again = LintPythonPackages(Data(), files);
  INFO(again.status().ToString());
  REQUIRE(again.ok());
  CHECK(again->needed_scope == std::vector<std::string>{"p"});
  CHECK(PythonHelperPid() != pid);
  CHECK(PythonHelperPid() > 0);
}

}  // namespace
}  // namespace forkscope::analyzer::integration
