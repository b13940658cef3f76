// The pieces of git's rename detection on their own: span signatures and scores (similarity.h) and
// the matching order and tie-breaks (renames.h) on in-memory files.
#include "analyzer/git/similarity.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "analyzer/git/renames.h"

namespace forkscope::analyzer::git {
namespace {

uint64_t Copied(const std::string& a, const std::string& b) {
  return SpanSignature::CopiedBytes(SpanSignature::Of(a), SpanSignature::Of(b));
}

TEST_CASE("span signatures count the bytes of chunks found again", "[analyzer][git][similarity]") {
  CHECK(Copied("one\ntwo\nthree\n", "one\ntwo\nthree\n") == 14);
  CHECK(Copied("one\ntwo\nthree\n", "three\none\n") == 10);  // order does not matter
  CHECK(Copied("one\none\n", "one\n") == 4);                 // a chunk counts as often as both have it
  // git 2.39 does not count a last chunk without a newline; 64-byte chunks of a long line do count.
  CHECK(Copied("no newline", "no newline") == 0);
  CHECK(Copied(std::string(130, 'x'), std::string(130, 'x')) == 128);
  // Text: the CR of a CRLF is skipped, so line endings do not matter; binary keeps every byte.
  CHECK(Copied("a\r\nb\r\n", "a\nb\n") == 4);
  CHECK(LooksBinary(std::string("a\0b\n", 4)));
  CHECK(Copied(std::string("a\r\n\0\n", 5), std::string("a\n\0\n", 4)) == 2);
}

TEST_CASE("scores and percentages on git's scale", "[analyzer][git][similarity]") {
  CHECK(MinimumScore(50) == 30000);
  CHECK(MinimumScore(100) == 60000);
  CHECK(SimilarityPercent(30000) == 50);
  CHECK(SimilarityPercent(29999) == 49);
  CHECK(SimilarityPercent(60000) == 100);
  CHECK(SimilarityScore(100, 80, 40) == 24000);  // the larger size is the denominator
  CHECK(SimilarityScore(10, 0, 0) == 0);
  // Sizes alone: at 50% the smaller file must be at least half of the larger.
  CHECK_FALSE(SizesRuleOut(100, 200, 30000));
  CHECK(SizesRuleOut(100, 201, 30000));
  CHECK(SizesRuleOut(0, 1, 30000));
  CHECK(SameBasename("a/b/util.py", "c/util.py"));
  CHECK(SameBasename("util.py", "x/util.py"));
  CHECK_FALSE(SameBasename("a/myutil.py", "b/util.py"));
}

class MapContent : public RenameContent {
 public:
  std::map<std::string, std::string> blobs;
  Result<uint64_t> Size(const std::string& oid) override { return static_cast<uint64_t>(blobs.at(oid).size()); }
  Result<std::string> Content(const std::string& oid) override { return blobs.at(oid); }
};

std::string Lines(const std::string& tag, int n, int rewritten = 0) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (i < rewritten ? "new " : "old ") + tag + " line " + std::to_string(100 + i) + "\n";
  return out;
}

TEST_CASE("matching order: exact, then unique basenames at 75%, then best scores", "[analyzer][git][similarity]") {
  MapContent content;
  content.blobs = {{"s1", Lines("s", 20)},
                   {"d1", Lines("s", 20)},
                   {"s2", Lines("t", 20)},
                   {"d2", Lines("t", 20, 6)},
                   {"d3", Lines("t", 20, 2)}};
  std::vector<RenameEntry> sources = {
      {"a/one.txt", 0100644, "s1"}, {"a/two.txt", 0100644, "s1"}, {"a/util.py", 0100644, "s2"}};
  std::vector<RenameEntry> destinations = {
      {"b/two.txt", 0100644, "d1"}, {"b/helpers.py", 0100644, "d3"}, {"b/util.py", 0100644, "d2"}};
  content.blobs["d1"] = content.blobs["s1"];
  destinations[0].oid = "s1";  // identical to both one.txt and two.txt
  auto result = FindRenames(sources, destinations, content, RenameOptions{});
  REQUIRE(result.ok());
  REQUIRE(result->pairs.size() == 2);
  CHECK(result->pairs[0].source == 1);  // exact, same basename over the earlier source
  CHECK(result->pairs[0].destination == 0);
  CHECK(result->pairs[0].score == 60000);
  // util.py -> util.py is 70%: below the basename bar, so the 90% helpers.py wins.
  CHECK(result->pairs[1].source == 2);
  CHECK(result->pairs[1].destination == 1);
  CHECK(SimilarityPercent(result->pairs[1].score) == 90);
}

TEST_CASE("symlinks rename only exactly; the rename limit stops inexact matching", "[analyzer][git][similarity]") {
  MapContent content;
  content.blobs = {{"l1", "target"}, {"l2", "target2"}, {"f1", Lines("f", 10)}, {"f2", Lines("f", 10, 1)}};
  std::vector<RenameEntry> sources = {{"x/link", 0120000, "l1"}, {"x/file", 0100644, "f1"}};
  std::vector<RenameEntry> destinations = {{"y/link", 0120000, "l2"}, {"y/other", 0100644, "f2"}};
  auto all = FindRenames(sources, destinations, content, RenameOptions{});
  REQUIRE(all.ok());
  REQUIRE(all->pairs.size() == 1);
  CHECK(all->pairs[0].source == 1);
  auto limited = FindRenames(sources, destinations, content, RenameOptions{50, 1});
  REQUIRE(limited.ok());
  CHECK(limited->pairs.empty());
  CHECK(limited->inexact_skipped);
}

}  // namespace
}  // namespace forkscope::analyzer::git
