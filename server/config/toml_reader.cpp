// TableReader (config_internal.h): typed, path-naming reads of one TOML table for the config loader.
// Unknown keys are refused with a "did you mean" for near misses, so a typo never silently keeps a
// default.
#include <algorithm>
#include <cstddef>
#include <utility>

#include "server/config/config_internal.h"

namespace forkscope::server::config_internal {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const char* NodeTypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::none:
      return "nothing";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
  }
  return "an unknown value";
}

}  // namespace

TableReader::TableReader(const toml::table& table, std::string path) : table_(table), path_(std::move(path)) {}

std::string TableReader::KeyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Status TableReader::CheckKnown(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, node] : table_) {
    const std::string_view name = key.str();
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string message = "unknown key '" + KeyPath(name) + "'";
    std::string_view closest;
    size_t best = 3;  // suggest only near misses (at most two edits)
    for (std::string_view candidate : known) {
      const size_t d = EditDistance(Lower(name), candidate);
      if (d < best) {
        best = d;
        closest = candidate;
      }
    }
    if (!closest.empty()) message += " (did you mean '" + KeyPath(closest) + "'?)";
    return InvalidArgument(message);
  }
  return Status::Ok();
}

Status TableReader::String(std::string_view key, std::string& out) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return Status::Ok();
  const auto* value = node->as_string();
  if (value == nullptr) return TypeError(key, "a string", *node);
  out = value->get();
  return Status::Ok();
}

Status TableReader::Bool(std::string_view key, bool& out) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return Status::Ok();
  const auto* value = node->as_boolean();
  if (value == nullptr) return TypeError(key, "a boolean", *node);
  out = value->get();
  return Status::Ok();
}

template <typename Int>
Status TableReader::Integer(std::string_view key, IntRange range, Int& out) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return Status::Ok();
  const auto* value = node->as_integer();
  if (value == nullptr) return TypeError(key, "an integer", *node);
  FS_RETURN_IF_ERROR(CheckRange(KeyPath(key), value->get(), range));
  out = static_cast<Int>(value->get());
  return Status::Ok();
}

// The field types of Config read as integers; another type needs its line here.
template Status TableReader::Integer<int>(std::string_view key, IntRange range, int& out) const;
template Status TableReader::Integer<size_t>(std::string_view key, IntRange range, size_t& out) const;

Status TableReader::StringArray(std::string_view key, std::vector<std::string>& out) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return Status::Ok();
  const auto* array = node->as_array();
  if (array == nullptr) return TypeError(key, "an array of strings", *node);
  std::vector<std::string> values;
  for (size_t i = 0; i < array->size(); ++i) {
    const auto* value = array->get(i)->as_string();
    if (value == nullptr) {
      return InvalidArgument(KeyPath(key) + "[" + std::to_string(i) + "]: expected a string, got " +
                             NodeTypeName(array->get(i)->type()));
    }
    values.push_back(value->get());
  }
  out = std::move(values);
  return Status::Ok();
}

Result<const toml::table*> TableReader::Table(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return static_cast<const toml::table*>(nullptr);
  if (!node->is_table()) return TypeError(key, "a table", *node);
  return node->as_table();
}

Result<std::vector<const toml::table*>> TableReader::Tables(std::string_view key) const {
  std::vector<const toml::table*> tables;
  const toml::node* node = table_.get(key);
  if (node == nullptr) return tables;
  const auto* array = node->as_array();
  if (array == nullptr) {
    return InvalidArgument(KeyPath(key) + ": expected an array of tables ([[" + KeyPath(key) + "]]), got " +
                           NodeTypeName(node->type()));
  }
  for (size_t i = 0; i < array->size(); ++i) {
    const auto* table = array->get(i)->as_table();
    if (table == nullptr) {
      return InvalidArgument(KeyPath(key) + "[" + std::to_string(i) + "]: expected a table, got " +
                             NodeTypeName(array->get(i)->type()));
    }
    tables.push_back(table);
  }
  return tables;
}

Status TableReader::TypeError(std::string_view key, const char* expected, const toml::node& node) const {
  return InvalidArgument(KeyPath(key) + ": expected " + expected + ", got " + NodeTypeName(node.type()));
}

}  // namespace forkscope::server::config_internal
