// SendJsonList (server/http/router.h): a list answer written an item at a time is the same bytes as
// SendJson of the whole {"<key>": [...]} document, text that is not UTF-8 included.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "server/http/router.h"

namespace forkscope::server {
namespace {

using nlohmann::json;

json Item(const std::string& name) {
  return json{{"name", name}, {"n", name.size()}, {"tags", json::array({"a", "b"})}};
}

}  // namespace

TEST_CASE("SendJsonList writes the bytes SendJson writes for the whole list", "[server][http]") {
  const std::vector<std::string> empty;
  const std::vector<std::string> one{"a"};
  const std::vector<std::string> many{"fork-1", "quote\"and\\slash", "bad\xff utf-8", "\xe4\xb8\xad\xe6\x96\x87"};
  for (const auto* names : {&empty, &one, &many}) {
    json whole = json::array();
    for (const auto& n : *names) whole.push_back(Item(n));
    httplib::Response expected;
    SendJson(expected, 200, json{{"forks", whole}});
    httplib::Response written;
    SendJsonList(written, "forks", *names, Item);
    CHECK(written.status == 200);
    CHECK(written.body == expected.body);
    CHECK(written.get_header_value("Content-Type") == expected.get_header_value("Content-Type"));
    CHECK(json::parse(written.body, nullptr, false)["forks"].size() == names->size());
  }
}

}  // namespace forkscope::server
