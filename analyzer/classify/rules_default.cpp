// Where the default rules come from: $FORKSCOPE_RULES, else the rules installed beside the running
// binary (<bin>/../share/forkscope/rules, so `cmake --install --prefix X` works wherever X is), else
// the configured install prefix's, else the source tree's. The only file of analyzer/classify compiled
// with the path definitions (CMakeLists.txt), so the others keep their ccache hits across checkouts.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "analyzer/classify/rules.h"

namespace forkscope::analyzer {
namespace {

constexpr const char* kInstalledRules = FORKSCOPE_INSTALL_DATA_DIR "/rules/default_rules.json";
constexpr const char* kSourceRules = FORKSCOPE_SOURCE_DIR "/analyzer/rules/default_rules.json";

// <dir of the running binary>/../share/forkscope/rules/default_rules.json: an install under any prefix
// (`cmake --install --prefix X` puts the binary in X/bin and the rules in X/share) finds its own rules.
std::string RulesBesideBinary() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return (exe.parent_path().parent_path() / "share" / "forkscope" / "rules" / "default_rules.json").string();
}

}  // namespace

Result<Rules> Rules::LoadDefault() {
  if (const char* env = std::getenv("FORKSCOPE_RULES"); env != nullptr && *env != '\0') return Load(env);
  std::error_code ec;
  if (std::string beside = RulesBesideBinary(); !beside.empty() && std::filesystem::exists(beside, ec))
    return Load(beside);
  if (std::filesystem::exists(kInstalledRules, ec)) return Load(kInstalledRules);
  return Load(kSourceRules);
}

std::string Rules::DefaultPath() {
  const char* env = std::getenv("FORKSCOPE_RULES");
  std::string first = (env != nullptr && *env != '\0') ? std::string("$FORKSCOPE_RULES=") + env
                                                       : std::string("$FORKSCOPE_RULES (unset)");
  std::string beside = RulesBesideBinary();
  return first + ", then " + (beside.empty() ? std::string() : beside + ", then ") + kInstalledRules + ", then " +
         kSourceRules;
}

}  // namespace forkscope::analyzer
