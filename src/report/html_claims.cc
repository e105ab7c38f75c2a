// The HTML report's claims section: the post-training economics essay's claims
// checked on this scenario.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

std::string ClaimsSection(const HtmlInput& in) {
  if (!in.claims && in.claims_error.empty()) return "";
  std::string h = "<section id=\"claims\"><h2>10. The essay's claims, checked on this scenario</h2>";
  if (!in.claims) return h + "<p class=\"note\">Not available: " + HtmlEscape(in.claims_error) + "</p></section>";
  h += "<p class=\"sub\">" + HtmlEscape(in.claims->source) +
       ". <b>holds</b>: rlcost's figure for this scenario is inside the essay's; <b>exceeds</b>: better than the essay "
       "claims (a bigger saving, speed-up or effect); <b>falls short</b>: worse than it claims; <b>depends</b>: on "
       "what the last column says.</p>";
  h += "<table class=\"claims\"><tr><th>the essay's claim</th><th>essay</th><th>rlcost</th><th>verdict</th>"
       "<th style=\"text-align:left\">why</th></tr>";
  for (const auto& c : in.claims->claims) {
    const char* colour = c.verdict == "holds"         ? "#1b7a3a"
                         : c.verdict == "exceeds"     ? "#2f6fd6"
                         : c.verdict == "falls short" ? "#b3261e"
                                                      : "#8a5a00";
    h += fmt::format("<tr data-claim=\"{}\" data-verdict=\"{}\"><td>{}</td><td>{}</td><td>{}</td>"
                     "<td style=\"color:{};font-weight:600\">{}</td><td style=\"text-align:left\">{}</td></tr>",
                     HtmlEscape(c.id), HtmlEscape(c.verdict), HtmlEscape(c.claim), HtmlEscape(c.claimed),
                     HtmlEscape(c.rlcost), colour, HtmlEscape(c.verdict), HtmlEscape(c.why));
  }
  return h + "</table></section>";
}


}  // namespace rlcost::report::html
