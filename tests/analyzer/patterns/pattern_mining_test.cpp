// Hunk normalisation, fingerprints, shingle similarity, MinHash/LSH and the grouping step of mining
// (AssignPattern over the in-memory catalogue), and the rules file's "mining" section.
#include "analyzer/patterns/pattern_mining.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "analyzer/classify/rules_data.h"
#include "analyzer/patterns/pattern_catalogue.h"
#include "tests/analyzer/classifier_fixture.h"

namespace forkscope::analyzer {
namespace {

using testing::MakeHunk;

HunkFingerprint Fp(std::string_view path, Layer layer, std::string_view body, const MiningOptions& options = {}) {
  return Fingerprint(options, path, layer, MakeHunk(10, 10, body).lines);
}

std::string Text(std::string_view path, std::string_view body) { return Fp(path, Layer::kPython, body).Text(); }

TEST_CASE("normalisation abstracts names and literals, keeps the framework vocabulary", "[analyzer][mining]") {
  SECTION("identifiers outside the vocabulary become $ID, framework names stay") {
    CHECK(Text("csrc/b.cpp",
               "-  src.record_stream(stream);\n+  paddle::experimental::record_stream(src._PD_GetInner(), stream);") ==
          "@- $ID . record_stream ( $ID ) ;\n@+ paddle :: experimental :: record_stream ( $ID . _PD_GetInner ( ) , $ID "
          ") ;");
  }
  SECTION("string literals keep the vocabulary words they carry, numbers are $NUM") {
    CHECK(Text("pyproject.toml", "-    \"torch>=2.1\",\n+    \"paddlepaddle-gpu>=3.0\",") ==
          "@- $STR(torch) ,\n@+ $STR(paddlepaddle,gpu) ,");
    CHECK(Text("a.py", "+x = f(\"fastops\", 42, 0x1f, 1.5e-3)") == "@+ $ID = $ID ( $STR , $NUM , $NUM , $NUM - $NUM )");
    CHECK(Text("a.py", "+s = rb'torch' + f\"{paddle}\"") == "@+ $ID = $STR(torch) + $STR(paddle)");
  }
  SECTION("comments and comment lines are dropped, context lines are not part of the hunk") {
    CHECK(Text("a.py", " import os\n+import paddle  # the proxy\n+# a whole comment line\n+paddle.enable_compat()") ==
          "@+ import paddle\n@+ paddle . enable_compat ( )");
    CHECK(Text("k.cu", "+  x = 1; // why\n+  /* block */ y = 2;\n+ * doc line") == "@+ $ID = $NUM ;\n@+ $ID = $NUM ;");
  }
  SECTION("prose keeps its words") { CHECK(Text("README.md", "+> Runs on Paddle now") == "@+ > runs on paddle now"); }
}

TEST_CASE("fingerprints match across names and spacing, and keep layer and kind apart", "[analyzer][mining]") {
  const char* fastops =
      "-  src.record_stream(stream);\n+  paddle::experimental::record_stream(src._PD_GetInner(), stream);";
  const char* sparsekit =
      "-  grad.record_stream( s );\n+  // Compat-Gap: at::Tensor::record_stream\n"
      "+  paddle::experimental::record_stream(grad._PD_GetInner(),s);";
  const HunkFingerprint a = Fp("csrc/bindings.cpp", Layer::kCppCompat, fastops);
  const HunkFingerprint b = Fp("src/ext_bindings.cu", Layer::kCppCompat, sparsekit);
  REQUIRE(a.hash.size() == 16);
  CHECK(a.Text() == b.Text());
  CHECK(a.hash == b.hash);
  CHECK(a.Scope() == "cpp_compat/cxx");
  CHECK(Fp("csrc/bindings.cpp", Layer::kKernel, fastops).hash != a.hash);
  CHECK(Fp("bindings.py", Layer::kCppCompat, fastops).hash != a.hash);
  CHECK(Fp("a.py", Layer::kPython, "+import paddle\n+paddle.enable_compat()").hash !=
        Fp("a.py", Layer::kPython, "+import numpy\n+numpy.enable_other()").hash);
  CHECK(MinedPatternId(a) == "mined.cpp_compat." + a.hash.substr(0, 12));
  CHECK(TokensFromText(a.Text()) == a.tokens);
}

TEST_CASE("hunks below min_tokens are not mined; max_tokens cuts long ones", "[analyzer][mining]") {
  CHECK(Fp("a.py", Layer::kPython, "+import paddle").hash.empty());
  CHECK(Fp("a.py", Layer::kPython, "+\n+   \n+# only a comment").hash.empty());
  MiningOptions small;
  small.max_tokens = 16;
  std::string body;
  for (int i = 0; i < 50; ++i) body += "+x = y + " + std::to_string(i) + "\n";
  const HunkFingerprint cut = Fp("a.py", Layer::kPython, body, small);
  CHECK(cut.tokens.size() == 16);
  CHECK_FALSE(cut.hash.empty());
}

TEST_CASE("DescribeFingerprint says what a hunk adds and removes", "[analyzer][mining]") {
  CHECK(DescribeFingerprint(Fp("setup.py", Layer::kBuild, "+import paddle\n+paddle.enable_compat()")) ==
        "build (py): adds `import paddle` and 1 more line(s)");
  CHECK(DescribeFingerprint(Fp("b.cpp", Layer::kCppCompat, "-  a.record_stream(s);\n+  foo(a, s);")) ==
        "cpp_compat (cxx): adds `$ID($ID,$ID);`; removes `$ID.record_stream($ID);`");
}

std::vector<std::string> Seq(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back("t" + std::to_string(i));
  return out;
}

HunkFingerprint Synthetic(const std::string& hash, std::vector<std::string> tokens) {
  HunkFingerprint fp;
  fp.hash = hash;
  fp.layer = Layer::kPython;
  fp.kind = FileKind::kPython;
  fp.tokens = std::move(tokens);
  return fp;
}

TEST_CASE("shingle Jaccard, MinHash and LSH buckets", "[analyzer][mining]") {
  const MiningOptions options;
  const auto a = Shingles(options, Seq(0, 20));  // 18 shingles
  const auto b = Shingles(options, Seq(0, 28));  // 26, 18 shared with a
  const auto c = Shingles(options, Seq(100, 120));
  CHECK(a.size() == 18);
  CHECK(Jaccard(a, a) == 1.0);
  CHECK(Jaccard(a, b) == Approx(18.0 / 26.0));
  CHECK(Jaccard(a, c) == 0.0);
  CHECK(Jaccard({}, {}) == 1.0);
  const auto sa = MinHash(a), sb = MinHash(b);
  REQUIRE(sa.size() == static_cast<size_t>(kMinHashBands * kMinHashRows));
  int equal = 0;
  for (size_t i = 0; i < sa.size(); ++i) equal += sa[i] == sb[i];
  CHECK(static_cast<double>(equal) / sa.size() == Approx(Jaccard(a, b)).margin(0.15));
  const auto ba = LshBuckets(sa), bb = LshBuckets(sb), bc = LshBuckets(MinHash(c));
  int shared_ab = 0, shared_ac = 0;
  for (int band = 0; band < kMinHashBands; ++band) {
    shared_ab += ba[band] == bb[band];
    shared_ac += ba[band] == bc[band];
  }
  CHECK(shared_ab > 0);
  CHECK(shared_ac == 0);
  CHECK(LshBuckets(sa) == ba);  // fixed seeds: the same buckets every run
}

TEST_CASE("AssignPattern groups exact and near matches and merges into the oldest pattern", "[analyzer][mining]") {
  const MiningOptions options;
  MemoryCatalogue catalogue;
  auto assign = [&](const HunkFingerprint& fp) {
    auto a = AssignPattern(catalogue, options, fp);
    REQUIRE(a.ok());
    return *a;
  };
  const HunkFingerprint first = Synthetic("aaaaaaaaaaaaaaaa", Seq(0, 20));
  const HunkFingerprint far = Synthetic("bbbbbbbbbbbbbbbb", Seq(8, 28));     // Jaccard 10/26 with first
  const HunkFingerprint bridge = Synthetic("cccccccccccccccc", Seq(0, 28));  // 18/26 with each
  const Assignment a1 = assign(first);
  CHECK(a1.new_pattern);
  CHECK(a1.pattern_id == "mined.python.aaaaaaaaaaaa");
  CHECK(assign(first).new_fingerprint == false);  // seen again: same pattern, nothing new
  const Assignment a2 = assign(far);
  CHECK(a2.new_pattern);
  CHECK(a2.pattern_id == "mined.python.bbbbbbbbbbbb");
  const Assignment a3 = assign(bridge);
  CHECK_FALSE(a3.new_pattern);
  CHECK(a3.pattern_id == "mined.python.aaaaaaaaaaaa");
  CHECK(a3.merged == std::vector<std::string>{"mined.python.bbbbbbbbbbbb"});
  const auto patterns = catalogue.Patterns();
  REQUIRE(patterns.size() == 1);
  CHECK(patterns.at("mined.python.aaaaaaaaaaaa").size() == 3);

  SECTION("another scope is never compared") {
    HunkFingerprint other = Synthetic("dddddddddddddddd", Seq(0, 20));
    other.layer = Layer::kBuild;
    CHECK(assign(other).new_pattern);
  }
  SECTION("a fingerprint without a hash is refused") {
    CHECK(AssignPattern(catalogue, options, Synthetic("", Seq(0, 5))).status().code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("the rules file's mining section overrides the defaults", "[analyzer][mining][rules]") {
  MiningOptions options;
  REQUIRE(ParseMiningOptions(nlohmann::json::parse(R"({"threshold": 0.8, "shingle": 4, "keep": ["fastops"]})"),
                             "r.json", options)
              .ok());
  CHECK(options.threshold == 0.8);
  CHECK(options.shingle == 4);
  CHECK(IsVocabulary(options, "fastops"));
  CHECK(options.Version() != MiningOptions().Version());
  CHECK(Fp("a.py", Layer::kPython, "+import fastops.core", options).Text() == "@+ import fastops . $ID");

  MiningOptions bad;
  CHECK(ParseMiningOptions(nlohmann::json::parse(R"({"threshold": 1.5})"), "r.json", bad).message() ==
        "r.json: mining.threshold: expected a number in (0, 1]");
  CHECK(ParseMiningOptions(nlohmann::json::parse(R"({"keep": ["not-an-id"]})"), "r.json", bad).message() ==
        "r.json: mining.keep: not an identifier: \"not-an-id\"");
  CHECK(ParseMiningOptions(nlohmann::json::parse(R"({"shingles": 3})"), "r.json", bad).message() ==
        "r.json: mining.shingles: unknown key");
  CHECK(testing::DefaultRules().data().mining.threshold == 0.6);
}

}  // namespace
}  // namespace forkscope::analyzer
