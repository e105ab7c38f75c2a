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
// - aliases (`*name`) that would expand past kMaxYamlAliasNodes nodes: refused
//   before any tree is built or walked ("billion laughs": 400 bytes of
//   nested aliases stand for 10^8 nodes, and every walk of the tree follows
//   each alias). yaml-cpp shares an aliased node rather than copying it, so
//   the parse itself is cheap; what is bounded is the walk every reader does.
//
// Empty text (or only comments) gives a null node, as YAML::Load does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "rlcost/error.h"

namespace rlcost {

// Nodes that aliases may add to a text, counted as if each alias were a copy
// of what it names (recursively). A scenario, a catalog or a config file uses
// none or a few (a shared mapping or list of some dozen nodes); 100,000 nodes
// take a reader about 20 ms to walk.
inline constexpr size_t kMaxYamlAliasNodes = 100000;

// `what` names the file's role in the second-document message ("a scenario
// file"); `origin` is the file name put in each Problem. `alias_budget`
// (when given) is the alias allowance shared by several texts read for one
// input (a scenario and its --set values): what this text's aliases add is
// taken from it; otherwise the text has kMaxYamlAliasNodes of its own.
Result<YAML::Node> LoadOneYamlDocument(std::string_view text, const std::string& origin, std::string_view what,
                                       size_t* alias_budget = nullptr);

// One YAML value that is not a file (a `--set` value, a request's field):
// malformed YAML and aliases past the budget are refused as Problems naming
// `path` in `origin` ("set", printed as --set on the command line). More than one document reads as YAML::Load
// reads it (the first).
Result<YAML::Node> LoadYamlValue(std::string_view text, const std::string& path, const std::string& origin,
                                 size_t* alias_budget = nullptr);

// The alias check alone, for readers with their own wording of parse errors
// (a JSON config read by yaml-cpp): "" when the aliases of `text` fit the
// budget (or the text does not parse: the reader says so itself), else the
// message of the refusal.
std::string YamlAliasProblem(std::string_view text, size_t* alias_budget = nullptr);

}  // namespace rlcost
