#include "tests/support/openapi.h"

#include <catch2/catch.hpp>

#include "tests/support/fixtures.h"

namespace forkscope::testing {

using nlohmann::json;

const OpenApi& OpenApi::Get() {
  static OpenApi api = [] {
    OpenApi a;
    std::string path = std::string(FORKSCOPE_SOURCE_DIR) + "/docs/openapi.yaml";
    auto r = RunCommand(
        "/usr/bin/python3 -c 'import json,sys,yaml; json.dump(yaml.safe_load(open(sys.argv[1])), "
        "sys.stdout)' " +
        ShellQuote(path));
    REQUIRE(r.status == 0);
    a.spec_ = json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(a.spec_.is_discarded());
    return a;
  }();
  return api;
}

const json& OpenApi::Resolve(const json& schema) const {
  if (!schema.is_object() || !schema.contains("$ref")) return schema;
  std::string ref = schema["$ref"].get<std::string>();  // "#/components/schemas/X"
  const json* node = &spec_;
  size_t start = 2;
  while (start < ref.size()) {
    size_t end = ref.find('/', start);
    if (end == std::string::npos) end = ref.size();
    node = &(*node)[ref.substr(start, end - start)];
    start = end + 1;
  }
  return Resolve(*node);
}

std::string OpenApi::CheckSchema(const json& raw, const json& v, const std::string& where) const {
  const json& s = Resolve(raw);
  if (v.is_null() && s.value("nullable", false)) return "";
  if (s.contains("allOf"))
    for (const auto& sub : s["allOf"])
      if (auto e = CheckSchema(sub, v, where); !e.empty()) return e;
  if (s.contains("oneOf")) {
    std::string errors;
    for (const auto& sub : s["oneOf"]) {
      auto e = CheckSchema(sub, v, where);
      if (e.empty()) return "";
      errors += e + "; ";
    }
    return where + ": matches no oneOf alternative (" + errors + ")";
  }
  if (s.contains("type")) {
    std::string t = s["type"];
    bool ok = (t == "object" && v.is_object()) || (t == "array" && v.is_array()) || (t == "string" && v.is_string()) ||
              (t == "integer" && v.is_number_integer()) || (t == "number" && v.is_number()) ||
              (t == "boolean" && v.is_boolean());
    if (!ok) return where + ": expected " + t + ", got " + v.dump().substr(0, 80);
  }
  if (s.contains("enum")) {
    bool found = false;
    for (const auto& e : s["enum"]) found = found || e == v;
    if (!found) return where + ": " + v.dump() + " not in enum";
  }
  if (v.is_object()) {
    for (const auto& r : s.value("required", json::array()))
      if (!v.contains(r.get<std::string>())) return where + ": missing required '" + r.get<std::string>() + "'";
    const json props = s.value("properties", json::object());
    for (const auto& item : v.items()) {
      if (props.contains(item.key())) {
        if (auto e = CheckSchema(props[item.key()], item.value(), where + "." + item.key()); !e.empty()) return e;
      } else if (s.contains("additionalProperties")) {
        const json& ap = s["additionalProperties"];
        if (ap.is_boolean() && !ap.get<bool>()) return where + ": unexpected property '" + item.key() + "'";
        if (ap.is_object())
          if (auto e = CheckSchema(ap, item.value(), where + "." + item.key()); !e.empty()) return e;
      }
    }
  }
  if (v.is_array() && s.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i)
      if (auto e = CheckSchema(s["items"], v[i], where + "[" + std::to_string(i) + "]"); !e.empty()) return e;
  }
  return "";
}

std::string OpenApi::Check(const std::string& method, const std::string& path_template, int status,
                           const std::string& content_type, const std::string& body) const {
  std::string m = method;
  for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!spec_["paths"].contains(path_template)) return "undocumented path " + path_template;
  const json& path = spec_["paths"][path_template];
  if (!path.contains(m)) return "undocumented method " + method + " " + path_template;
  const json& responses = path[m]["responses"];
  std::string code = std::to_string(status);
  if (!responses.contains(code)) return "undocumented status " + code + " for " + method + " " + path_template;
  const json& response = Resolve(responses[code]);
  if (!response.contains("content")) return body.empty() ? "" : "unexpected body for status " + code;
  std::string media = content_type.substr(0, content_type.find(';'));
  if (!response["content"].contains(media)) return "undocumented content type " + media + " for status " + code;
  if (media != "application/json") return "";
  json value = json::parse(body, nullptr, false);
  if (value.is_discarded()) return "body is not JSON";
  return CheckSchema(response["content"][media]["schema"], value, "$");
}

std::string OpenApi::CheckError(const std::string& content_type, const std::string& body) const {
  if (content_type.substr(0, content_type.find(';')) != "application/json") return "error body is not JSON";
  json value = json::parse(body, nullptr, false);
  if (value.is_discarded()) return "body is not JSON";
  const json& response = Resolve(spec_["components"]["responses"]["Error"]);
  return CheckSchema(response["content"]["application/json"]["schema"], value, "$");
}

}  // namespace forkscope::testing
