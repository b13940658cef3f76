#include "analyzer/model/json_read.h"

#include <limits>

namespace forkscope::analyzer::json_read {

using nlohmann::json;

Status Bad(const std::string& key, const std::string& want) {
  return InvalidArgument("key '" + key + "' must be " + want);
}

Result<const json*> Get(const json& obj, const std::string& key) {
  if (!obj.is_object()) return InvalidArgument("expected an object holding '" + key + "'");
  auto it = obj.find(key);
  if (it == obj.end()) return InvalidArgument("missing key '" + key + "'");
  return &*it;
}

Status Read(const json& obj, const std::string& key, std::string& out, bool nullable) {
  FS_ASSIGN_OR_RETURN(const json* v, Get(obj, key));
  if (nullable && v->is_null()) {
    out.clear();
    return Status::Ok();
  }
  if (!v->is_string()) return Bad(key, nullable ? "a string or null" : "a string");
  out = v->get<std::string>();
  return Status::Ok();
}

Status Read(const json& obj, const std::string& key, bool& out) {
  FS_ASSIGN_OR_RETURN(const json* v, Get(obj, key));
  if (!v->is_boolean()) return Bad(key, "true or false");
  out = v->get<bool>();
  return Status::Ok();
}

Status Read(const json& obj, const std::string& key, int64_t& out) {
  FS_ASSIGN_OR_RETURN(const json* v, Get(obj, key));
  if (!v->is_number_integer() ||
      (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
    return Bad(key, "an integer");
  out = v->get<int64_t>();
  return Status::Ok();
}

Status Read(const json& obj, const std::string& key, int& out) {
  int64_t wide = 0;
  FS_RETURN_IF_ERROR(Read(obj, key, wide));
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
    return Bad(key, "a 32-bit integer");
  out = static_cast<int>(wide);
  return Status::Ok();
}

Status Read(const json& obj, const std::string& key, double& out) {
  FS_ASSIGN_OR_RETURN(const json* v, Get(obj, key));
  if (!v->is_number()) return Bad(key, "a number");
  out = v->get<double>();
  return Status::Ok();
}

Result<const json*> Array(const json& obj, const std::string& key) {
  FS_ASSIGN_OR_RETURN(const json* v, Get(obj, key));
  if (!v->is_array()) return Bad(key, "an array");
  return v;
}

Status ReadStrings(const json& obj, const std::string& key, std::vector<std::string>& out) {
  FS_ASSIGN_OR_RETURN(const json* arr, Array(obj, key));
  for (const auto& e : *arr) {
    if (!e.is_string()) return Bad(key, "an array of strings");
    out.push_back(e.get<std::string>());
  }
  return Status::Ok();
}

}  // namespace forkscope::analyzer::json_read
