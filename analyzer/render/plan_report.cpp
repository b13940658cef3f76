// Renderers of a MigrationPlan: JSON (docs/planner.md), Markdown, and the validation path as a job
// recipe in TOML.
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/planner/planner.h"

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

json Nullable(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

double Round3(double x) { return std::round(x * 1000) / 1000; }

json ExamplesJson(const std::vector<WorkedExample>& examples) {
  json out = json::array();
  for (const auto& e : examples)
    out.push_back(
        {{"fork", e.fork}, {"pattern", e.pattern}, {"path", e.path}, {"line", e.line}, {"analysis_id", e.analysis_id}});
  return out;
}

json Strings(const std::vector<std::string>& v) { return json(v); }

// A TOML basic string.
std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Code(const std::string& s) { return "`" + s + "`"; }

std::string Escape(std::string s) {
  for (size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  return s;
}

std::string Example(const WorkedExample& e) { return e.fork + " " + e.path + ":" + std::to_string(e.line); }

// The first round as a table, one row per touchpoint with what to do and why; the if-needed places one
// line per pattern and file (a library reaches the CUDA stream in every source file: a row each would
// bury the few changes that matter).
void MarkdownTouchpoints(const MigrationPlan& plan, std::ostringstream& md) {
  constexpr size_t kLinesListed = 5;
  md << "## 1. Migration plan: where the first round of changes goes\n\n";
  std::vector<const Touchpoint*> first, if_needed;
  for (const auto& t : plan.touchpoints) (t.when == TouchpointWhen::kFirst ? first : if_needed).push_back(&t);
  if (first.empty())
    md << "No first-round touchpoint found.\n\n";
  else
    md << "| layer | file:line | pattern | what to do | why | worked example |\n|---|---|---|---|---|---|\n";
  for (const Touchpoint* t : first) {
    std::string example;
    for (const auto& e : t->examples) example += (example.empty() ? "" : "; ") + Example(e);
    md << "| " << LayerName(t->layer) << " | " << Code(t->path + ":" + std::to_string(t->line)) << " | "
       << (t->pattern.empty() ? "" : Code(t->pattern)) << " | " << Escape(t->reason) << " | " << Escape(t->why) << " | "
       << Escape(example) << " |\n";
  }
  if (!first.empty()) md << "\n";
  if (if_needed.empty()) return;
  md << "### Only if the build, the import or a test fails there\n\n"
     << "The compat layer usually covers these, and no migrated fork much like this library changed them: "
        "leave them as they are unless the validation path below stops at one.\n\n";
  std::vector<std::pair<std::string, std::vector<const Touchpoint*>>> groups;  // pattern + path, in order
  for (const Touchpoint* t : if_needed) {
    const std::string key = t->pattern + '\n' + t->path;
    if (groups.empty() || groups.back().first != key) groups.push_back({key, {}});
    groups.back().second.push_back(t);
  }
  for (const auto& [key, items] : groups) {
    const Touchpoint& t = *items.front();
    md << "- " << Code(t.path) << " line" << (items.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < items.size() && i < kLinesListed; ++i) md << (i ? ", " : "") << items[i]->line;
    if (items.size() > kLinesListed) md << " and " << items.size() - kLinesListed << " more";
    md << " (" << LayerName(t.layer) << (t.pattern.empty() ? "" : ", " + Code(t.pattern)) << "): " << t.reason << "\n";
  }
  md << "\n";
}

// One line per reason: a library keeps dozens of files (CUTLASS headers, kernels) for the same one.
void MarkdownKeep(const MigrationPlan& plan, std::ostringstream& md) {
  constexpr size_t kListed = 5;  // files named on a line before "and N more"
  md << "## 2. Minimal change boundary: what stays untouched\n\n";
  std::vector<std::vector<const KeepItem*>> groups;  // in the order each reason first appears
  std::map<std::string, size_t> group_of;
  for (const auto& k : plan.keep) {
    const std::string key = std::string(LayerName(k.layer)) + '\n' + k.reason + (k.whole_file ? "" : "\npartly");
    auto [it, inserted] = group_of.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(&k);
  }
  for (const auto& items : groups) {
    const KeepItem& k = *items.front();
    const std::string partly = k.whole_file ? "" : " — partly";
    if (items.size() == 1) {
      md << "- " << Code(k.path) << " (" << LayerName(k.layer) << ")" << partly << ": " << k.reason << "\n";
      continue;
    }
    md << "- " << items.size() << " files (" << LayerName(k.layer) << ")" << partly << ": " << k.reason << " — ";
    for (size_t i = 0; i < items.size() && i < kListed; ++i) md << (i ? ", " : "") << Code(items[i]->path);
    if (items.size() > kListed) md << " and " << items.size() - kListed << " more";
    md << "\n";
  }
  md << "\n";
}

void MarkdownValidation(const MigrationPlan& plan, std::ostringstream& md) {
  md << "## 3. Validation path: build → import → minimal functional test\n\n";
  for (const auto& s : plan.validation)
    md << "- **" << s.stage << "**" << (s.gpu ? " (GPU)" : "") << ": " << Code(s.run) << " — " << s.why << "\n";
  md << "\nAs a job recipe:\n\n```toml\n" << PlanRecipeToml(plan) << "```\n\n";
}

void MarkdownGaps(const MigrationPlan& plan, std::ostringstream& md) {
  md << "## 4. Compat-gap strategy\n\n";
  if (plan.gaps.empty()) md << "No C++ API used here has been bridged by a migrated fork.\n\n";
  for (const auto& g : plan.gaps) {
    md << "- " << Code(g.api) << " — bridged by " << g.forks.size() << " fork(s) (";
    for (size_t i = 0; i < g.forks.size(); ++i) md << (i ? ", " : "") << g.forks[i];
    md << ")";
    if (!g.bridges.empty()) md << " with " << Code(g.bridges.front());
    if (!g.issues.empty()) md << "; Paddle issue " << g.issues.front();
    md << ". Used here at";
    for (const auto& u : g.uses) md << " " << Code(u.path + ":" + std::to_string(u.line));
    md << ".\n";
  }
  md << "\n";
}

void MarkdownSimilar(const MigrationPlan& plan, std::ostringstream& md) {
  md << "## Most similar migrated forks\n\n";
  if (plan.similar.empty()) md << "None analysed yet.\n";
  for (const auto& s : plan.similar) {
    md << "- **" << s.fork << "** (score " << Round3(s.score) << ": layers " << Round3(s.layer_similarity)
       << ", patterns " << Round3(s.pattern_similarity) << ")\n";
    for (const auto& e : s.examples)
      md << "  - " << Code(e.pattern) << " at " << Code(e.path + ":" + std::to_string(e.line)) << "\n";
  }
}

}  // namespace

json PlanToJson(const MigrationPlan& plan) {
  json doc = json::object();
  doc["upstream"] = {{"url", plan.upstream.url}, {"branch", plan.upstream.branch}, {"sha", plan.upstream.sha}};
  doc["package"] = Nullable(plan.package);
  json first = json::object(), if_needed = json::object();
  for (Layer l : kAllLayers) first[LayerName(l)] = 0, if_needed[LayerName(l)] = 0;
  for (const auto& t : plan.touchpoints) {
    json& counts = t.when == TouchpointWhen::kFirst ? first : if_needed;
    counts[LayerName(t.layer)] = counts[LayerName(t.layer)].get<int>() + 1;
  }
  doc["summary"] = {
      {"touchpoints", first}, {"if_needed", if_needed}, {"keep", plan.keep.size()}, {"compat_gaps", plan.gaps.size()}};
  json& touchpoints = doc["touchpoints"] = json::array();
  for (const auto& t : plan.touchpoints)
    touchpoints.push_back({{"path", t.path},
                           {"line", t.line},
                           {"layer", LayerName(t.layer)},
                           {"reason", t.reason},
                           {"pattern", Nullable(t.pattern)},
                           {"when", TouchpointWhenName(t.when)},
                           {"why", t.why},
                           {"examples", ExamplesJson(t.examples)}});
  json& keep = doc["keep"] = json::array();
  for (const auto& k : plan.keep)
    keep.push_back(
        {{"path", k.path}, {"layer", LayerName(k.layer)}, {"reason", k.reason}, {"whole_file", k.whole_file}});
  json steps = json::array();
  for (const auto& s : plan.validation)
    steps.push_back({{"stage", s.stage}, {"run", s.run}, {"why", s.why}, {"gpu", s.gpu}});
  doc["validation"] = {{"steps", steps}, {"recipe_toml", PlanRecipeToml(plan)}};
  json& gaps = doc["compat_gaps"] = json::array();
  for (const auto& g : plan.gaps) {
    json uses = json::array();
    for (const auto& u : g.uses) uses.push_back({{"path", u.path}, {"line", u.line}});
    gaps.push_back({{"api", g.api},
                    {"api_key", g.api_key},
                    {"uses", uses},
                    {"forks", Strings(g.forks)},
                    {"occurrences", g.occurrences},
                    {"bridges", Strings(g.bridges)},
                    {"issues", Strings(g.issues)}});
  }
  json& similar = doc["similar_forks"] = json::array();
  for (const auto& s : plan.similar)
    similar.push_back({{"fork", s.fork},
                       {"score", Round3(s.score)},
                       {"layer_similarity", Round3(s.layer_similarity)},
                       {"pattern_similarity", Round3(s.pattern_similarity)},
                       {"examples", ExamplesJson(s.examples)}});
  doc["notes"] = Strings(plan.notes);
  return doc;
}

std::string PlanRecipeToml(const MigrationPlan& plan) {
  std::ostringstream toml;
  toml << "# Validation path inferred by `forkscope plan` for " << plan.upstream.url << "\n"
       << "# build -> import -> smoke. Add a [stages.compare] that runs the smoke test under PyTorch and\n"
       << "# compares the outputs once the three pass.\n";
  for (const auto& s : plan.validation)
    toml << "\n[stages." << s.stage << "]\nrun = " << TomlString(s.run) << "\ngpu = " << (s.gpu ? "true" : "false")
         << "\n";
  return toml.str();
}

std::string PlanToMarkdown(const MigrationPlan& plan) {
  std::ostringstream md;
  md << "# Migration plan for " << plan.upstream.url;
  if (!plan.upstream.branch.empty()) md << " (" << plan.upstream.branch << ")";
  md << "\n\n";
  if (!plan.package.empty()) md << "Python package: " << Code(plan.package) << ".\n\n";
  for (const auto& n : plan.notes) md << "> " << n << "\n\n";
  MarkdownTouchpoints(plan, md);
  MarkdownKeep(plan, md);
  MarkdownValidation(plan, md);
  MarkdownGaps(plan, md);
  MarkdownSimilar(plan, md);
  return md.str();
}

}  // namespace forkscope::analyzer
