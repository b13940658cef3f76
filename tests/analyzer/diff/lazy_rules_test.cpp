// Rules compiled on first use (the shipped default, recognised by its text) against the same rules
// compiled at load (any other text: here the default with one more newline): the same analysis of
// both demo forks, byte for byte, and only the shipped text is left to compile lazily.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "analyzer/classify/default_rules_text.h"
#include "analyzer/classify/rules.h"
#include "analyzer/classify/rules_data.h"
#include "analyzer/diff/analysis.h"
#include "analyzer/render/report.h"
#include "tests/support/corpus.h"

namespace forkscope::analyzer {
namespace {

using testing::GitRepo;
using testing::TempDir;

std::string AnalysisJson(const TempDir& tmp, const std::string& fork, const std::string& upstream, const Rules& rules) {
  AnalyzeRequest req;
  req.fork_location = fork;
  req.upstream_location = upstream;
  req.data_dir = tmp.Sub("data");
  auto pair = ResolvePair(req);
  REQUIRE(pair.ok());
  auto analysis = AnalyzeResolved(*pair, rules, req.diff);
  REQUIRE(analysis.ok());
  analysis->duration_ms = 0;  // not content: wall time, the clock, and the rules text's hash (which
  analysis->created_at = 0;   // differs by the one newline that makes the eager copy)
  analysis->rules_version.clear();
  return AnalysisToJson(*analysis, true).dump();
}

TEST_CASE("rules compiled on first use classify exactly as rules compiled at load", "[analyzer][rules][lazy]") {
  const std::string shipped(DefaultRulesText());
  auto lazy = Rules::FromJson(shipped, "<shipped>");
  auto eager = Rules::FromJson(shipped + "\n", "<shipped, one more newline>");
  REQUIRE(lazy.ok());
  REQUIRE(eager.ok());
  const int regexes = lazy->data().RegexCount();
  REQUIRE(regexes > 50);
  CHECK(eager->data().RegexCount() == regexes);
  CHECK(lazy->data().CompiledRegexCount() == 0);         // nothing compiled at load
  CHECK(eager->data().CompiledRegexCount() == regexes);  // everything compiled (and checked) at load

  TempDir tmp;
  GitRepo up = testing::BuildUpstream(tmp.Sub("upstream"));
  GitRepo compat = testing::BuildCompatFork(up.path(), tmp.Sub("compat"));
  GitRepo native = testing::BuildNativeFork(up.path(), tmp.Sub("native"));
  for (const GitRepo* fork : {&compat, &native}) {
    INFO(fork->path());
    const std::string by_eager = AnalysisJson(tmp, fork->path(), up.path(), *eager);
    const std::string by_lazy = AnalysisJson(tmp, fork->path(), up.path(), *lazy);
    CHECK(by_lazy == by_eager);
  }
  const int used = lazy->data().CompiledRegexCount();
  CHECK(used > 0);
  CHECK(used <= regexes);
}

TEST_CASE("a lazily compiled regex compiles once, whichever thread asks first", "[analyzer][rules][lazy]") {
  auto rules = Rules::FromJson(std::string(DefaultRulesText()), "<shipped>");
  REQUIRE(rules.ok());
  const LazyRegex& re = rules->data().style.paddle_added;
  REQUIRE(static_cast<bool>(re));
  REQUIRE_FALSE(re.compiled());
  const int64_t before = LazyRegex::CompiledOnFirstUse();
  std::vector<std::thread> threads;
  std::vector<int> matched(8, 0);
  for (size_t i = 0; i < matched.size(); ++i)
    threads.emplace_back([&, i] { matched[i] = RE2::PartialMatch("import paddle", *re) ? 1 : 0; });
  for (auto& t : threads) t.join();
  CHECK(re.compiled());
  CHECK(LazyRegex::CompiledOnFirstUse() - before == 1);
  for (int m : matched) CHECK(m == 1);
}

TEST_CASE("rules other than the shipped text still fail at load on a bad regex", "[analyzer][rules][lazy]") {
  std::string text(DefaultRulesText());
  const std::string field = "\"added\": \"";
  const size_t at = text.find(field);
  REQUIRE(at != std::string::npos);
  text = text.substr(0, at + field.size()) + "(" + text.substr(at + field.size());  // unbalanced
  auto rules = Rules::FromJson(text, "edited.json");
  REQUIRE_FALSE(rules.ok());
  CHECK(rules.status().message().find("edited.json: patterns[") == 0);
  CHECK(rules.status().message().find("bad regex") != std::string::npos);
}

}  // namespace
}  // namespace forkscope::analyzer
