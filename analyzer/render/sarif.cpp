// SARIF 2.1.0 for GitHub code scanning. One run; rules are listed in the order their ids first
// appear (violations first, then "compat-gap"), and each result points at its rule by index.
// partialFingerprints lets code scanning track an alert across pushes even when lines move;
// "forkscope/finding/v1" is the fingerprint a baseline (.forkscope-baseline.json) keeps.
#include "analyzer/render/sarif.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace forkscope::analyzer {
namespace {

using nlohmann::json;

#ifdef FORKSCOPE_VERSION
constexpr const char* kToolVersion = FORKSCOPE_VERSION;
#else
constexpr const char* kToolVersion = "dev";
#endif

constexpr const char* kCompatGapRule = "compat-gap";

// What the default rules mean, for the rule list code scanning shows; unknown ids get their
// first message.
const std::map<std::string, std::string, std::less<>>& KnownRuleDescriptions() {
  static const auto* kDescriptions = new std::map<std::string, std::string, std::less<>>{
      {"formatting-only", "A hunk that only reformats upstream code"},
      {"renamed-upstream-file", "An upstream file renamed or moved by the migration"},
      {"deleted-upstream-file", "An upstream file deleted by the migration"},
      {"global-enable-compat-runtime", "A global paddle.enable_compat() in run-time code"},
      {"schema-edit", "An edit to an operator schema string"},
      {"kernel-edit", "A kernel edit without a stated reason"},
      {"deprecated-torch-proxy", "Use of the deprecated paddle.compat.enable_torch_proxy()"},
      {"compat-gap-no-removal", "A compat gap workaround that does not state when it can be removed"},
      {kCompatGapRule, "A compat gap: a torch API that Paddle lacks, bridged at one call site"},
  };
  return *kDescriptions;
}

// "formatting-only" -> "FormattingOnly", as SARIF rule names are written.
std::string RuleName(std::string_view id) {
  std::string name;
  bool upper = true;
  for (char c : id) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      upper = true;
      continue;
    }
    name.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return name.empty() ? "Rule" : name;
}

// FNV-1a 64 over the fields, each followed by a NUL so "ab"+"c" and "a"+"bc" differ.
std::string Fingerprint(std::initializer_list<std::string_view> fields) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](unsigned char c) { h = (h ^ c) * 1099511628211ull; };
  for (std::string_view f : fields) {
    for (char c : f) mix(static_cast<unsigned char>(c));
    mix(0);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// "https://user:token@host/x" -> "https://host/x": credentials never leave in a report.
std::string RedactUrl(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t host = scheme + 3;
  size_t slash = url.find('/', host);
  size_t at = url.rfind('@', slash == std::string::npos ? url.size() : slash);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

// A repository path as a relative URI reference: RFC 3986 pchars and '/' stay, everything else
// (spaces, '%', '#', '?', non-ASCII bytes) is percent-encoded.
std::string PathToUri(std::string_view path) {
  static constexpr std::string_view kKeep = "-._~!$&'()*+,;=:@/";
  std::string uri;
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
        kKeep.find(c) != std::string_view::npos) {
      uri.push_back(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      uri += buf;
    }
  }
  return uri;
}

class RuleTable {
 public:
  // The index of the rule, adding it on first sight.
  int IndexOf(const std::string& id, const std::string& first_message, const char* level) {
    auto it = index_.find(id);
    if (it != index_.end()) return it->second;
    const auto& known = KnownRuleDescriptions();
    auto desc = known.find(id);
    std::string text = desc != known.end() ? desc->second : (first_message.empty() ? id : first_message);
    rules_.push_back({{"id", id},
                      {"name", RuleName(id)},
                      {"shortDescription", {{"text", text}}},
                      {"defaultConfiguration", {{"level", level}}}});
    int index = static_cast<int>(rules_.size()) - 1;
    index_.emplace(id, index);
    return index;
  }
  json Take() { return std::move(rules_); }

 private:
  json rules_ = json::array();
  std::map<std::string, int> index_;
};

json Location(const std::string& path, int line) {
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", PathToUri(path)}, {"uriBaseId", "%SRCROOT%"}}},
            {"region", {{"startLine", line < 1 ? 1 : line}}}}}};
}

json MakeResult(RuleTable& rules, const std::string& rule, const char* level, const std::string& path, int line,
            const std::string& message) {
  int index = rules.IndexOf(rule, message, level);
  return {{"ruleId", rule},
          {"ruleIndex", index},
          {"level", level},
          {"message", {{"text", message}}},
          {"locations", json::array({Location(path, line)})},
          {"partialFingerprints", {{"forkscope/v1", Fingerprint({rule, path, message})}}}};
}

// A violation at its rule's severity, with the baseline's fingerprint, a grouped finding's files as
// related locations, and its baseline state when a baseline was applied.
json ViolationResult(RuleTable& rules, const Violation& v, std::optional<bool> baselined) {
  const std::string rule = v.rule.empty() ? "unnamed-rule" : v.rule;
  json result = MakeResult(rules, rule, SeverityName(v.severity), v.path, v.line, v.message.empty() ? rule : v.message);
  result["partialFingerprints"]["forkscope/finding/v1"] = ViolationFingerprint(v);
  if (!v.files.empty()) {
    json related = json::array();
    for (const auto& file : v.files) related.push_back(Location(file, 0));
    result["relatedLocations"] = std::move(related);
  }
  if (!baselined) return result;
  result["baselineState"] = *baselined ? "unchanged" : "new";
  if (*baselined)
    result["suppressions"] = json::array({{{"kind", "external"}, {"justification", "accepted in the baseline"}}});
  return result;
}

std::string CompatGapMessage(const CompatGap& gap) {
  std::string m = "Compat gap: " + (gap.api.empty() ? std::string("a torch API") : gap.api) + " is missing in Paddle";
  m += gap.bridge.empty() ? "; no bridge named" : "; bridged with " + gap.bridge;
  m += gap.removal.empty() ? "; no removal condition stated" : "; remove when " + gap.removal;
  if (!gap.issue.empty()) m += " (" + gap.issue + ")";
  return m + ".";
}

// Where the analysis came from, for code scanning's run details; empty values are left out.
void AddProvenance(const Analysis& analysis, json* run) {
  const RefInfo& fork = analysis.fork;
  if (fork.sha.empty()) return;
  (*run)["automationDetails"] = {{"id", "forkscope/" + fork.sha}};
  json props = {{"forkSha", fork.sha}};
  if (!fork.branch.empty()) props["forkBranch"] = fork.branch;
  if (!fork.url.empty()) props["forkUrl"] = RedactUrl(fork.url);
  if (!analysis.upstream.sha.empty()) props["upstreamSha"] = analysis.upstream.sha;
  if (!analysis.merge_base.empty()) props["mergeBase"] = analysis.merge_base;
  if (!analysis.rules_version.empty()) props["rulesVersion"] = analysis.rules_version;
  (*run)["properties"] = std::move(props);
  if (fork.url.find("://") != std::string::npos) {
    json vcs = {{"repositoryUri", RedactUrl(fork.url)}, {"revisionId", fork.sha}};
    if (!fork.branch.empty()) vcs["branch"] = fork.branch;
    (*run)["versionControlProvenance"] = json::array({std::move(vcs)});
  }
}

}  // namespace

json RenderSarif(const Analysis& analysis, const std::vector<bool>& baselined) {
  RuleTable rules;
  json results = json::array();
  for (size_t i = 0; i < analysis.violations.size(); ++i) {
    std::optional<bool> state;
    if (i < baselined.size()) state = baselined[i];
    results.push_back(ViolationResult(rules, analysis.violations[i], state));
  }
  for (const CompatGap& gap : analysis.compat_gaps)
    results.push_back(MakeResult(rules, kCompatGapRule, "note", gap.path, gap.line, CompatGapMessage(gap)));

  json driver = {{"name", "forkscope"},
                 {"informationUri", "https://github.com/PFCCLab"},
                 {"version", kToolVersion},
                 {"rules", rules.Take()}};
  json run = {{"tool", {{"driver", std::move(driver)}}}, {"results", std::move(results)}};
  AddProvenance(analysis, &run);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace forkscope::analyzer
