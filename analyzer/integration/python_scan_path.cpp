// Where the Python parse helper lives: found like the rules (analyzer/classify/rules_default.cpp). The
// only file of analyzer/integration compiled with the path definitions (CMakeLists.txt).
#include <cstdlib>
#include <filesystem>
#include <string>

#include "analyzer/integration/python_scan.h"

namespace forkscope::analyzer::integration {
namespace {

constexpr const char* kInstalledScript = FORKSCOPE_INSTALL_DATA_DIR "/rules/python_ast_scan.py";
constexpr const char* kSourceScript = FORKSCOPE_SOURCE_DIR "/analyzer/rules/python_ast_scan.py";

std::string ScriptBesideBinary() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (exe.parent_path().parent_path() / "share" / "forkscope" / "rules" / "python_ast_scan.py").string();
}

}  // namespace

std::string PythonScanScriptPath() {
  if (const char* env = std::getenv("FORKSCOPE_PYTHON_SCAN"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (const std::string& candidate : {ScriptBesideBinary(), std::string(kInstalledScript), std::string(kSourceScript)})
    if (!candidate.empty() && std::filesystem::exists(candidate, ec)) return candidate;
  return "";
}

}  // namespace forkscope::analyzer::integration
