#include "base/message_code.h"

namespace forkscope::base {

void PutMessageCode(nlohmann::json& out, std::string_view field, const std::string& code,
                    const std::string& params_json) {
  const std::string name(field);
  out[name + "_code"] = code.empty() ? nlohmann::json(nullptr) : nlohmann::json(code);
  nlohmann::json params =
      params_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(params_json, nullptr, false);
  out[name + "_params"] = params.is_object() ? params : nlohmann::json::object();
}

std::string MessageParamsText(const nlohmann::json& params) {
  return params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json NestedMessage(const std::string& code, const nlohmann::json& params, const std::string& text) {
  return {{"code", code.empty() ? nlohmann::json(nullptr) : nlohmann::json(code)},
          {"params", params.is_object() ? params : nlohmann::json::object()},
          {"text", text}};
}

}  // namespace forkscope::base
