#include "analyzer/integration/integration_render.h"

namespace forkscope::analyzer::integration {
namespace {

std::string Short(const std::string& sha) { return sha.empty() ? "-" : sha.substr(0, 12); }

std::string Join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string StateText(const LibraryReport& lib) {
  std::string s = PinStateName(lib.state);
  if (lib.state == PinState::kBehind && lib.behind) s += " " + std::to_string(*lib.behind);
  return s;
}

std::string StepsText(const IntegrationSteps& s, const char* yes, const char* no) {
  auto one = [&](const char* name, bool v) { return std::string(name) + " " + (v ? yes : no); };
  return Join({one("submodule", s.submodule), one("get_libs", s.get_libs), one("submodule_check", s.submodule_check),
               one("gitignore", s.gitignore), one("loader", s.loader), one("import_test", s.import_test)},
              " ");
}

std::string Upstream(const LibraryReport& lib) {
  return lib.upstream_behind ? std::to_string(*lib.upstream_behind) : "-";
}

std::string Scope(const std::vector<std::string>& scope) { return scope.empty() ? "-" : "{" + Join(scope) + "}"; }

}  // namespace

std::string RenderIntegratorText(const IntegratorReport& r) {
  std::string out = "integrator " + r.name + " " + r.url + " " + r.branch + " @ " + Short(r.head) + "\n";
  for (const auto& n : r.notices) out += "  note: " + n + "\n";
  for (const auto& lib : r.libraries) {
    out += "\n" + lib.name + "  " + StateText(lib) + "  " + (lib.path.empty() ? "" : lib.path) + "\n";
    out += "  fork " + (lib.fork.empty() ? std::string("(none)") : lib.fork) +
           (lib.branch.empty() ? "" : " " + lib.branch) + "  pinned " + Short(lib.pinned_sha) + "  upstream behind " +
           Upstream(lib) + "\n";
    if (!lib.notes.empty()) out += "  " + lib.notes + "\n";
    out += "  steps: " + StepsText(lib.steps, "yes", "NO") + "\n";
    out += "  loader: " + lib.loader.guard + " " + Scope(lib.loader.scope) + "  needed scope " +
           Scope(lib.needed_scope) + "\n";
    if (!lib.scope_lacks.empty()) out += "  scope lacks: " + Join(lib.scope_lacks) + "\n";
    if (!lib.multi_card_tests.empty()) out += "  multi-card tests: " + Join(lib.multi_card_tests) + "\n";
    for (const auto& m : lib.missing) {
      out += "  to paste:\n";
      size_t start = 0;
      while (start < m.size()) {
        size_t end = m.find('\n', start);
        if (end == std::string::npos) end = m.size();
        out += "    " + m.substr(start, end - start) + "\n";
        start = end + 1;
      }
    }
  }
  return out;
}

std::string RenderIntegratorMarkdown(const IntegratorReport& r) {
  std::string out =
      "# Integrator " + r.name + "\n\n`" + r.url + "` branch `" + r.branch + "` at `" + Short(r.head) + "`\n\n";
  for (const auto& n : r.notices) out += "> " + n + "\n";
  if (!r.notices.empty()) out += "\n";
  out += "| library | fork | state | pinned | upstream behind | steps | loader | needed scope |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  for (const auto& lib : r.libraries)
    out += "| `" + lib.name + "` | " + (lib.fork.empty() ? "—" : lib.fork) + " | " + StateText(lib) + " | `" +
           Short(lib.pinned_sha) + "` | " + Upstream(lib) + " | " + StepsText(lib.steps, "✓", "✗") + " | " +
           lib.loader.guard + " " + Scope(lib.loader.scope) + " | " + Scope(lib.needed_scope) + " |\n";
  for (const auto& lib : r.libraries) {
    if (lib.missing.empty() && lib.notes.empty()) continue;
    out += "\n## " + lib.name + "\n\n";
    if (!lib.notes.empty()) out += lib.notes + "\n\n";
    for (const auto& m : lib.missing) out += "```\n" + m + "```\n";
  }
  return out;
}

std::string RenderForkIntegrationMarkdown(const std::string& fork_name, const std::vector<IntegratorReport>& reports) {
  std::string rows, pastes;
  for (const auto& r : reports) {
    for (const auto& lib : r.libraries) {
      if (lib.fork != fork_name) continue;
      rows += "| " + r.name + (r.branch.empty() ? std::string() : " `" + r.branch + "`") + " | `" + lib.path + "` | " +
              StateText(lib) + " | `" + Short(lib.pinned_sha) + "` | " + Upstream(lib) + " | " +
              StepsText(lib.steps, "✓", "✗") + " | " + lib.loader.guard + " " + Scope(lib.loader.scope) + " | " +
              Scope(lib.needed_scope) + " |\n";
      if (!lib.notes.empty()) pastes += "\n" + r.name + ", `" + lib.name + "`: " + lib.notes + "\n";
      for (const auto& m : lib.missing) pastes += "\n" + r.name + ", `" + lib.name + "`:\n\n```\n" + m + "```\n";
    }
  }
  if (rows.empty()) return "";
  return "## PaddleFleet integration\n\n| integrator | path | state | pinned | upstream behind | steps | loader | "
         "needed scope |\n"
         "|---|---|---|---|---|---|---|---|\n" +
         rows + pastes;
}

}  // namespace forkscope::analyzer::integration
