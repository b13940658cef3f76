// Internal to the JSON readers of analyzer/model (carry_json.cpp, drift_json.cpp): the key readers they
// share. Every key they read is required; a failure is InvalidArgument naming the key ("key 'behind' must
// be an integer"), which the reader's entry point prefixes with its document ("drift json: ...").
// Not part of the model's interface. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace forkscope::analyzer::json_read {

// InvalidArgument "key '<key>' must be <want>".
Status Bad(const std::string& key, const std::string& want);

// The value of obj[key]; InvalidArgument when obj is no object or has no such key.
Result<const nlohmann::json*> Get(const nlohmann::json& obj, const std::string& key);

// obj[key] into out, when it has out's type. A nullable string reads null as "".
Status Read(const nlohmann::json& obj, const std::string& key, std::string& out, bool nullable = false);
Status Read(const nlohmann::json& obj, const std::string& key, bool& out);
Status Read(const nlohmann::json& obj, const std::string& key, int64_t& out);
Status Read(const nlohmann::json& obj, const std::string& key, int& out);  // a 32-bit integer
Status Read(const nlohmann::json& obj, const std::string& key, double& out);

// obj[key] when it is an array.
Result<const nlohmann::json*> Array(const nlohmann::json& obj, const std::string& key);
// Appends the strings of the array obj[key] to out.
Status ReadStrings(const nlohmann::json& obj, const std::string& key, std::vector<std::string>& out);

// A name read through parse (LayerFromName, ...); want says what the names are ("a layer"). A nullable
// key reads null as the name "".
template <typename E>
Status ReadEnum(const nlohmann::json& obj, const std::string& key, std::optional<E> (*parse)(const std::string&),
                E& out, const char* want, bool nullable = false) {
  std::string name;
  FS_RETURN_IF_ERROR(Read(obj, key, name, nullable));
  auto v = parse(name);
  if (!v) return Bad(key, want);
  out = *v;
  return Status::Ok();
}

}  // namespace forkscope::analyzer::json_read
