// The alert tables of schema v4 on a real SQLite file: the one-active-alert constraint, the outbox's
// state rules, cascades from the fork registry, and the schema comment naming every column.
#include "storage/alert_store.h"

#include <catch2/catch.hpp>

#include "storage/db.h"
#include "storage/migrations.h"
#include "tests/storage/fixtures.h"

namespace forkscope::storage {
namespace {

using testing::CountRows;

struct Env : testing::StoreWithFork {
  Env()
      : StoreWithFork("flashinfer", "https://github.com/PFCCLab/flashinfer",
                      "https://github.com/flashinfer-ai/flashinfer") {}
};

DeliveryPlanner OneDelivery(std::vector<std::string>* ids) {
  return [ids](const AlertRecord& alert, AlertEvent event) {
    DeliveryRecord d;
    d.id = "d" + std::to_string(alert.id) + "-" + AlertEventName(event);
    d.target = "ops";
    d.kind = "generic";
    d.body = "{}";
    ids->push_back(d.id);
    return std::vector<DeliveryRecord>{d};
  };
}

TEST_CASE("alert store: one active alert per fork and rule, outbox rows in the same transaction", "[storage][alerts]") {
  Env env;
  AlertStore alerts(*env.store);
  std::vector<std::string> ids;
  AlertCondition behind{"behind", true, 60, 50, "warning", "60 behind"};
  auto opened = alerts.Evaluate(env.fork_id, behind, 100, OneDelivery(&ids));
  REQUIRE(opened.ok());
  REQUIRE(opened->has_value());
  CHECK((*opened)->event == AlertEvent::kOpened);
  CHECK(CountRows(env.path, "deliveries") == 1);

  // The schema itself refuses a second active alert for the pair.
  auto dup = env.store->db().Exec(
      "INSERT INTO alerts (fork_id, rule, state, severity, opened_at, updated_at) "
      "VALUES (" +
      std::to_string(env.fork_id) + ", 'behind', 'acked', 'info', 1, 1)");
  CHECK(dup.code() == StatusCode::kAlreadyExists);

  // A planner that fails rolls the alert change back with it.
  AlertCondition conflict{"predicted-conflict", true, 1, 0, "warning", "x"};
  auto broken = alerts.Evaluate(env.fork_id, conflict, 101, [](const AlertRecord&, AlertEvent) {
    DeliveryRecord d;  // the same id twice: the second insert fails
    d.id = "same";
    return std::vector<DeliveryRecord>{d, d};
  });
  CHECK(broken.status().code() == StatusCode::kAlreadyExists);
  CHECK(CountRows(env.path, "alerts") == 1);
  CHECK(CountRows(env.path, "deliveries") == 1);

  DeliveryStore outbox(*env.store);
  auto due = outbox.Due(100, 10);
  REQUIRE(due.ok());
  REQUIRE(due->size() == 1);
  CHECK(outbox.RecordAttempt(ids[0], {100, 200, ""}, "delivered", std::nullopt).ok());
  // Once delivered, never again: a second record is refused and the row is unchanged.
  CHECK(outbox.RecordAttempt(ids[0], {101, 200, ""}, "delivered", std::nullopt).code() ==
        StatusCode::kFailedPrecondition);
  auto row = outbox.Get(ids[0]);
  REQUIRE(row.ok());
  CHECK((*row)->attempts == 1);
  CHECK((*row)->delivered_at == 100);
  CHECK(outbox.Due(1000, 10)->empty());
  CHECK_FALSE(outbox.NextDue()->has_value());

  // Unregistering the fork takes its alerts, deliveries, attempts and health with it.
  REQUIRE(alerts.SaveHealth(env.fork_id, ForkHealth{2, "e", 1, 0, false, 0, "", true}).ok());
  REQUIRE(env.store->DeleteFork("flashinfer").ok());
  for (const char* table : {"alerts", "deliveries", "delivery_attempts", "fork_health"}) {
    INFO(table);
    CHECK(CountRows(env.path, table) == 0);
  }
}

TEST_CASE("schema v4 documents its tables, and a migration every column it adds", "[storage][alerts]") {
  Env env;
  const std::string schema(Migrations()[3]);  // version 4
  std::string comment = schema.substr(0, schema.find("*/"));
  const std::string v4 = comment;
  for (const auto& later : Migrations().subspan(4)) comment += std::string(later.substr(0, later.find("*/")));
  for (const char* table : {"alerts", "deliveries", "delivery_attempts", "fork_health"}) {
    CHECK(v4.find(std::string("** ") + table + " --") != std::string::npos);
    auto info = env.store->db().Prepare(std::string("SELECT name FROM pragma_table_info('") + table + "')");
    REQUIRE(info.ok());
    while (*info->Step()) {
      INFO(table << "." << info->ColumnText(0));
      CHECK(comment.find(info->ColumnText(0)) != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace forkscope::storage
