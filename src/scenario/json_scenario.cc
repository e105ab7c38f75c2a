#include "scenario/json_scenario.h"

#include "scenario/overrides.h"

namespace rlcost::scenario_internal {

YAML::Node JsonToYaml(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items()) {
        YAML::Node k(key);
        k.SetTag("!");  // a JSON key is a quoted string
        map.force_insert(k, JsonToYaml(value));  // keys of a parsed object are unique
      }
      return map;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& v : j) seq.push_back(JsonToYaml(v));
      return seq;
    }
    case nlohmann::json::value_t::string: {
      YAML::Node s(j.get_ref<const std::string&>());
      s.SetTag("!");  // quoted: "8" stays text, "null" is not null
      return s;
    }
    case nlohmann::json::value_t::boolean: {
      YAML::Node b(std::string(j.get<bool>() ? "true" : "false"));
      b.SetTag("?");
      return b;
    }
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: {
      std::string text = j.dump();  // the spelling the text route parses
      if (text == "null") return YAML::Node(YAML::NodeType::Null);  // inf/nan print as null
      YAML::Node n(text);
      n.SetTag("?");
      return n;
    }
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
    case nlohmann::json::value_t::binary:
      break;
  }
  return YAML::Node(YAML::NodeType::Null);
}

Result<Scenario> LoadScenarioJson(const nlohmann::json& scenario, const Catalog& catalog, const std::string& origin,
                                  const std::string& base_dir, const std::vector<Override>& overrides) {
  return LoadScenarioNode(JsonToYaml(scenario), catalog, origin, base_dir, overrides);
}

}  // namespace rlcost::scenario_internal
