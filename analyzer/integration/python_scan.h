// The Python parse helper: analyzer/rules/python_ast_scan.py run by python3 in a child process that
// only parses — one long-lived helper per process by default (started on first use, restarted when it
// dies or times out), else one process per call (CPython's ast and tokenize; nothing of the repository is imported or
// executed). Files travel on its stdin as one JSON request, the answer comes back on its stdout. The script ships with
// the rules and is found like them: $FORKSCOPE_PYTHON_SCAN, else beside the running binary
// (<bin>/../share/forkscope/rules/python_ast_scan.py), else the install prefix's, else the source
// tree's; the interpreter is $FORKSCOPE_PYTHON, else python3 on PATH. Any thread may call.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace forkscope::analyzer::integration {

// What one helper run cost: wall time and the child's CPU time (user + system, from wait4), the figure
// that stays put on a busy machine.
struct PythonScanStats {
  int64_t wall_us = 0;
  int64_t cpu_us = 0;
};

struct PythonScanOptions {
  std::string python;       // "" = $FORKSCOPE_PYTHON, else "python3" (looked up on PATH)
  std::string script;       // "" = PythonScanScriptPath()
  int timeout_ms = 120000;  // the helper is killed past this (DeadlineExceeded)
  size_t max_output_bytes = size_t{256} << 20;
  PythonScanStats* stats = nullptr;  // filled when set
  // Use the process' long-lived helper (python_served.cpp: the interpreter starts once per process, not
  // per call) when python and script are the defaults; false runs a fresh process for this call.
  bool persistent = true;
};

// Where the helper script is looked for, first found wins ("" when none exists).
std::string PythonScanScriptPath();

// The pid of this process' long-lived helper, -1 when none runs (tests, diagnostics).
int PythonHelperPid();

// Runs the helper on request ({"mode": ..., "files": [...]}, see the script) and returns its answer
// ({"files": [...]}). Errors: FailedPrecondition (python3 or the script missing: says what to install
// or set), DeadlineExceeded, Internal (the helper failed or answered something that is not JSON; with
// the last line it wrote on stderr).
Result<nlohmann::json> RunPythonScan(const nlohmann::json& request, const PythonScanOptions& options = {});

}  // namespace forkscope::analyzer::integration
