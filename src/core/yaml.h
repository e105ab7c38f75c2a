// One YAML document from a user's text, with every way yaml-cpp can fail
// turned into a Problem that names the file and line:
//
//   auto root = rlcost::LoadOneYamlDocument(text, path, "a scenario file");
//   if (!root) return Fail(root.error());
//
// - malformed YAML: yaml-cpp's message at its line;
// - a second document (after `---`): refused at the line it starts, since
//   YAML::Load would silently drop it;
// - a token that yaml-cpp 0.7 cannot start a node with (a ',' outside
//   [ ] or { }): refused at its line. YAML::LoadAll would loop forever there:
//   SingleDocParser::HandleNode reports a null node for such a token without
//   consuming it, so every HandleNextDocument call yields another empty
//   document at the same place (jbeder/yaml-cpp#1040; fixed upstream in
//   jbeder/yaml-cpp#1319, after the 0.7.0 that Debian 12 ships).
//   YAML::Load would return a null document and ignore the rest of the file.
//
// Empty text (or only comments) gives a null node, as YAML::Load does.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "rlcost/error.h"

namespace rlcost {

// `what` names the file's role in the second-document message ("a scenario
// file"); `origin` is the file name put in each Problem.
Result<YAML::Node> LoadOneYamlDocument(std::string_view text, const std::string& origin, std::string_view what);

}  // namespace rlcost
