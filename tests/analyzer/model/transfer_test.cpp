// Progress off a terminal (analyzer/model/transfer.h): one line per 10% step of each named phase,
// never going back, restarting for the next transfer; a checkout reports its own phase.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analyzer/model/transfer.h"

namespace forkscope::analyzer {
namespace {

TransferProgress Receiving(const std::string& url, unsigned received, unsigned total) {
  TransferProgress p;
  p.url = url;
  p.received_objects = received;
  p.total_objects = total;
  p.phase = TransferPhase::kReceiving;
  return p;
}

TransferProgress Resolving(const std::string& url, unsigned indexed, unsigned total) {
  TransferProgress p = Receiving(url, 1000, 1000);
  p.indexed_objects = 1000 - total + indexed;
  p.indexed_deltas = indexed;
  p.total_deltas = total;
  p.phase = TransferPhase::kResolving;
  return p;
}

TEST_CASE("progress lines: one per 10% per phase, phases named, monotonic", "[analyzer][git][progress]") {
  ProgressLines lines;
  std::vector<std::string> out;
  auto feed = [&](const TransferProgress& p) {
    if (std::string l = lines.Next(p); !l.empty()) out.push_back(l);
  };
  for (unsigned i = 0; i <= 1000; ++i) feed(Receiving("up", i, 1000));  // 1001 callbacks
  REQUIRE(out.size() == 11);                                            // 0%, 10%, ... 100%
  CHECK(out.front().find("phase=\"receiving objects\" progress=0%") != std::string::npos);
  CHECK(out.back().find("progress=100% objects=1000/1000") != std::string::npos);
  feed(Receiving("up", 500, 1000));  // going back gives no line
  CHECK(out.size() == 11);
  for (unsigned i = 0; i <= 300; ++i) feed(Resolving("up", i, 300));
  REQUIRE(out.size() == 22);
  CHECK(out[11].find("phase=\"resolving deltas\" progress=0% deltas=0/300") != std::string::npos);
  CHECK(out.back().find("progress=100%") != std::string::npos);
  feed(Receiving("up", 1000, 1000));  // an earlier phase again: nothing
  CHECK(out.size() == 22);
  feed(Receiving("fork", 3, 10));  // the next transfer starts over
  REQUIRE(out.size() == 23);
  CHECK(out.back().find("url=fork phase=\"receiving objects\" progress=30%") != std::string::npos);
  TransferProgress checkout;
  checkout.url = "/net@abc";
  checkout.phase = TransferPhase::kCheckingOut;
  checkout.received_objects = 5;
  checkout.total_objects = 10;
  CHECK(lines.Next(checkout) == "checkout of=/net@abc phase=\"checking out\" progress=50% files=5/10");
  TransferProgress packing;
  packing.url = "/data/networks/up.git";
  packing.phase = TransferPhase::kConsolidating;
  packing.received_objects = 1200;  // the delta search over 1,000 objects done, 200 written
  packing.total_objects = 2000;
  CHECK(packing.Percent() == 60);
  CHECK(lines.Next(packing) ==
        "consolidate network=/data/networks/up.git phase=\"consolidating packs\" progress=60% objects=1200/2000");
}

TEST_CASE("transfer percent never goes back when deltas are counted", "[analyzer][git][progress]") {
  TransferProgress p = Receiving("up", 1000, 1000);
  p.indexed_objects = 700;  // every object in, 300 deltas not resolved yet (libgit2 has not counted them)
  const int received = p.Percent();
  CHECK(received == 80);
  p.total_deltas = 300;  // resolving starts: the overall figure stays where receiving ended
  p.phase = TransferPhase::kResolving;
  CHECK(p.Percent() == received);
  p.indexed_deltas = 300;
  p.indexed_objects = 1000;
  CHECK(p.Percent() == 100);
  TransferProgress half = Receiving("up", 500, 1000);
  half.total_deltas = 40;  // deltas seen while still receiving do not count yet
  CHECK(half.Percent() == 40);
}

}  // namespace
}  // namespace forkscope::analyzer
