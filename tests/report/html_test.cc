// The HTML report: self-contained (no network), every chart has marks, and it
// loads in headless Chromium with no console errors and a passing self-check.
#include "report/html.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "decide/levers.h"
#include "report/levers_table.h"

namespace rlcost::report {
namespace {

namespace fs = std::filesystem;

// A hand-built estimate: a 100 s step, 60 s rollout, 30 s train, 10 s other.
Estimate FakeEstimate(double scale) {
  Estimate e;
  e.step.time_s = 100 * scale;
  e.step.rollout_s = 60 * scale;
  e.step.train_s = 30 * scale;
  e.step.other_s = 10 * scale;
  e.step.logprob_s = 6 * scale;
  e.step.weight_sync_s = 4 * scale;
  e.step.gpu_s_rollout = 480 * scale;
  e.step.gpu_s_train = 240 * scale;
  e.step.gpu_s_other = 80 * scale;
  e.step.gpu_s_idle = 0;
  e.step.rollout_busy_s = 60 * scale;
  e.step.train_busy_s = 40 * scale;
  e.usd_per_step = 2 * scale;
  e.usd_per_useful_sample = 0.002 * scale;
  e.usd_per_reward_bit = 0.003 * scale;
  e.usd = 600 * scale;
  e.usd_by_phase.rollout = 360 * scale;
  e.usd_by_phase.train = 180 * scale;
  e.usd_by_phase.other = 50 * scale;
  e.usd_by_phase.startup = 10 * scale;
  e.signal.rollouts_per_step = 1024;
  e.signal.informative_fraction = 0.8;
  e.signal.useful_samples_per_step = 819.2;
  return e;
}

levers::Config FakeConfig(std::string id, double scale, double prev_scale) {
  levers::Config c;
  c.id = id;
  c.title = id;
  c.ok = true;
  c.estimate = FakeEstimate(scale);
  c.values = {100 * scale, 2 * scale, 0.002 * scale, 0.003 * scale, std::nullopt, 600 * scale};
  c.factor_prev.assign(levers::kHeadlineCount, prev_scale / scale);
  c.factor_base.assign(levers::kHeadlineCount, 1 / scale);
  return c;
}

struct Fixture {
  Scenario s;
  Estimate e = FakeEstimate(1);
  levers::Waterfall wf;
  HtmlInput in;
  Fixture() {
    s.name = "hand <built> & \"quoted\"";
    s.model_id = "m";
    wf.scenario_name = s.name;
    wf.baseline = FakeConfig("baseline", 1, 1);
    wf.stages = {FakeConfig("async", 0.5, 1), FakeConfig("fp8", 0.25, 0.5)};
    wf.solo = {FakeConfig("solo:async", 0.5, 1)};
    wf.solo_product.assign(levers::kHeadlineCount, 4.0);
    wf.verdict_summary = "verdict sentence";
    in.scenario = &s;
    in.estimate = &e;
    in.waterfall = &wf;
    levers::PassRateCurve c;
    c.group_size = 2;
    c.pass_rate = {0.1, 0.5, 0.9};
    c.usd_per_useful_sample = {0.01, 0.002, 0.01};
    in.curves = {c};
  }
};

TEST(Html, EscapesMarkup) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
}

TEST(Html, IsSelfContainedWithSixCharts) {
  Fixture f;
  std::string html = RenderHtml(f.in);
  // No external resources: no src=, no <link>, no http(s) URL.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // Waterfall ($/useful, $/step), step time, GPU time, pass rate, timeline.
  size_t charts = 0;
  for (size_t p = html.find("<svg class=\"chart\""); p != std::string::npos; p = html.find("<svg class=\"chart\"", p + 1)) ++charts;
  EXPECT_EQ(charts, 9u);  // + dollars by phase, + your run's step and dollars (no GPU-count sweep in the fixture)
  // The headline figures carry their likely range and say where it comes from.
  EXPECT_NE(html.find("Likely range (analytic estimate): <b>step time</b>"), std::string::npos);
  EXPECT_NE(html.find("published runs"), std::string::npos);
  // The scenario name is escaped, never raw.
  EXPECT_EQ(html.find("hand <built>"), std::string::npos);
  EXPECT_NE(html.find("hand &lt;built&gt;"), std::string::npos);
  // Step-time bar of the baseline: 60 s rollout tooltip with its share (60 of 100 s).
  EXPECT_NE(html.find("rollout: 60.0 s (60.0% of the step)"), std::string::npos);
}

TEST(Html, OpensWithTheUsersRunAndItsPlan) {
  // The first section is the user's run: $600 for the run (FakeEstimate),
  // 100 s steps at $2, the layout chosen, the runner-up at $2.5 per step and why.
  Fixture f;
  f.s.algorithm.steps = 300;
  PlanSummary p;
  p.layout = "colocated on 8 GPUs, rollout_tp 2 (4 engines)";
  p.runner_up = "colocated on 8 GPUs, rollout_tp 1 (8 engines)";
  p.runner_up_usd_per_step = 2.5;
  p.runner_up_step_s = 125;
  p.literal = p.runner_up;
  p.literal_usd_per_step = 2.5;
  p.literal_step_s = 125;
  p.candidates = 4;
  p.fitting = 3;
  p.why = {"reason one", "reason two"};
  f.e.plan = p;
  std::string html = RenderHtml(f.in);
  const size_t run = html.find("<section id=\"your-run\">");
  ASSERT_NE(run, std::string::npos);
  EXPECT_EQ(html.find("<section"), run);  // before the waterfall and everything else
  EXPECT_LT(run, html.find("chart-waterfall"));
  EXPECT_NE(html.find(R"(<b data-key="run.usd" data-value="600">$600</b> for the run: 300 steps of )"), std::string::npos);
  EXPECT_NE(html.find(R"(<b data-key="cost.usd_per_step" data-value="2">$2.00</b>)"), std::string::npos);
  EXPECT_NE(html.find("<b>colocated on 8 GPUs, rollout_tp 2 (4 engines)</b> (4 layouts tried, 3 fit in memory)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr data-row="runner-up" data-usd-per-step="2.5"><td>runner-up</td><td>$2.50</td><td>125 s</td>)"), std::string::npos);
  EXPECT_NE(html.find("<li>reason two</li>"), std::string::npos);
  // No plan: the layout as written, and how to have it planned.
  f.e.plan.reset();
  html = RenderHtml(f.in);
  EXPECT_NE(html.find("As the scenario states it: <b>colocated on"), std::string::npos);
}

TEST(Html, TooltipsSayTinyDurationsInWordsNotExponents) {
  // A weight sync of 9.26e-14 s is "<1 ms"; 0.25 s is "250 ms"; zero segments are not drawn.
  Fixture f;
  f.e.step.weight_sync_s = 9.26e-14;
  f.e.step.logprob_s = 0.25;
  std::string html = RenderHtml(f.in);
  // (data-value keeps the number for tests; what a reader hovers never shows it.)
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(data-tip="[^"]*\de-\d)"))) << "a tooltip with a raw exponent";
  EXPECT_NE(html.find("weight sync: &lt;1 ms ("), std::string::npos);
  EXPECT_NE(html.find("log-prob pass: 250 ms ("), std::string::npos);
}

TEST(Html, SelfCheckLineIsHiddenFromTheReader) {
  Fixture f;
  EXPECT_NE(RenderHtml(f.in).find(R"(<p id="selfcheck" hidden data-status="pending">)"), std::string::npos);
}

TEST(Html, GoalOnTheIllustrativeCurveSaysSoBesideTheFigure) {
  Fixture f;
  f.e.goal.requested = true;
  f.e.goal.reachable = true;
  f.e.goal.target_pass_rate = 0.6;
  f.e.goal.usd = 365;
  f.e.goal.steps = 281;
  f.e.goal.curve_is_illustrative = true;
  std::string html = RenderHtml(f.in);
  const size_t g = html.find("id=\"goal-answer\"");
  ASSERT_NE(g, std::string::npos);
  EXPECT_NE(html.substr(g, html.find("</p>", g) - g).find("ILLUSTRATIVE learning curve"), std::string::npos);
  f.e.goal.curve_is_illustrative = false;  // the user's own goal.curve
  html = RenderHtml(f.in);
  EXPECT_EQ(html.find("ILLUSTRATIVE"), std::string::npos);
}

TEST(Html, WaterfallChartsWhatTheMoneyBuysAndLabelsDiscounts) {
  // With a goal, the second waterfall chart is $ to goal (the verdict's
  // metric), not $ per step; each quality discount is listed with its source.
  Fixture f;
  for (auto* c : {&f.wf.baseline, &f.wf.stages[0], &f.wf.stages[1]}) c->values[levers::kUsdToGoal] = 700 * c->values[0].value() / 100;
  levers::Discount d;
  d.id = "staleness";
  d.label = "staleness 1 (async)";
  d.value = 0.05;
  d.assumed = true;
  d.source = "ASSUMPTION (not measured): hand-made";
  f.wf.stages[0].discounts = {d};
  f.wf.stages[0].worth = 0.95;
  std::string html = RenderHtml(f.in);
  EXPECT_NE(html.find("id=\"chart-waterfall-goal\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"chart-waterfall-step\""), std::string::npos);
  EXPECT_NE(html.find("a rollout is worth 0.950 of an on-policy bf16 one: staleness 1 (async) -5% (ASSUMPTION)"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"quality-discounts\""), std::string::npos);
  EXPECT_NE(html.find("ASSUMPTION (not measured): hand-made"), std::string::npos);
}

// --- Bar geometry as written in the SVG -------------------------------------------

double Attr(const std::string& tag, const std::string& name) {
  std::smatch m;
  std::regex re(" " + name + R"re(="([^"]*)")re");
  if (!std::regex_search(tag, m, re)) return std::nan("");
  return std::stod(m[1]);
}

struct Bar {
  double x0, total, ppu;
  std::vector<std::pair<double, double>> segs;  // (x, width)
  std::vector<double> values;
};

// Every <g class="bar"> of one chart with its segments, read off the markup.
std::vector<Bar> ReadBars(const std::string& html, const std::string& chart_id) {
  size_t a = html.find("id=\"" + chart_id + "\"");
  size_t b = html.find("</svg>", a);
  std::string svg = html.substr(a, b - a);
  std::vector<Bar> bars;
  std::regex tag(R"re(<g class="bar"[^>]*>|<rect class="seg"[^>]*>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    std::string t = it->str();
    if (t.rfind("<g", 0) == 0) {
      bars.push_back({Attr(t, "data-x0"), Attr(t, "data-total"), Attr(t, "data-px-per-unit"), {}, {}});
    } else if (!bars.empty()) {
      bars.back().segs.push_back({Attr(t, "x"), Attr(t, "width")});
      bars.back().values.push_back(Attr(t, "data-value"));
    }
  }
  return bars;
}

// Each segment starts where the previous ended, is as wide as its own value
// (one px-per-unit for the whole chart) and the segments fill the bar.
void ExpectOwnSizeSegments(const std::vector<Bar>& bars, size_t want_bars) {
  ASSERT_EQ(bars.size(), want_bars);
  for (const auto& bar : bars) {
    EXPECT_NEAR(bar.ppu, bars.front().ppu, 1e-9);
    double x = bar.x0, sum_w = 0;
    ASSERT_FALSE(bar.segs.empty());
    for (size_t i = 0; i < bar.segs.size(); ++i) {
      EXPECT_NEAR(bar.segs[i].first, x, 0.01) << "segment " << i << " does not start where the previous ended";
      EXPECT_NEAR(bar.segs[i].second, bar.values[i] * bar.ppu, 0.01) << "segment " << i << " is not its own size";
      x += bar.segs[i].second;
      sum_w += bar.segs[i].second;
    }
    EXPECT_NEAR(sum_w, bar.total * bar.ppu, 0.05) << "segments do not add up to the bar";
  }
}

TEST(Html, StackedSegmentsAreDrawnToTheirOwnSize) {
  Fixture f;
  f.e.step.other_s = 0;
  f.e.step.weight_sync_s = 0.04;  // a tiny weight sync stays tiny
  f.e.step.logprob_s = 9.96;
  std::string html = RenderHtml(f.in);
  // Step time: this scenario + baseline + two stages = 4 bars.
  auto bars = ReadBars(html, "chart-steptime");
  ExpectOwnSizeSegments(bars, 4);
  // This scenario: rollout 60, train 30, log-prob 9.96, sync 0.04 -> 100 s.
  ASSERT_EQ(bars[0].values.size(), 4u);
  EXPECT_NEAR(bars[0].total, 100, 1e-9);
  EXPECT_NEAR(bars[0].segs[3].second, 0.04 * bars[0].ppu, 0.01);
  EXPECT_LT(bars[0].segs[3].second, 1.0);  // drawn cumulatively it was the whole bar
  EXPECT_NEAR(bars[0].segs[0].second / bars[0].segs[1].second, 2.0, 1e-3);
  ExpectOwnSizeSegments(ReadBars(html, "chart-gputime"), 4);
  ExpectOwnSizeSegments(ReadBars(html, "chart-timeline"), 1);
  ExpectOwnSizeSegments(ReadBars(html, "chart-usdphase"), 4);
}

// --- Headless Chromium -----------------------------------------------------------

std::string FindChromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct BrowserRun {
  int rc = -1;
  std::string dom;
  std::string log;
};

// --dump-dom after the inline script ran; console messages go to stderr.
BrowserRun RunChromium(const std::string& chromium, const fs::path& html, const fs::path& dir,
                       const std::string& screenshot = "") {
  fs::path profile = dir / "profile";
  fs::create_directories(profile);
  std::string flags = "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
                      "--disable-component-update --disable-sync --enable-logging=stderr --v=0 --user-data-dir=" +
                      profile.string();
  BrowserRun r;
  std::string cmd = "timeout 120 " + chromium + " " + flags + " --dump-dom file://" + html.string() + " >" +
                    (dir / "dom.html").string() + " 2>" + (dir / "log.txt").string();
  r.rc = std::system(cmd.c_str());
  r.dom = Slurp(dir / "dom.html");
  r.log = Slurp(dir / "log.txt");
  if (!screenshot.empty()) {
    std::string shot = "timeout 120 " + chromium + " " + flags + " --window-size=1400,3000 --screenshot=" + screenshot +
                       " file://" + html.string() + " >/dev/null 2>&1";
    (void)std::system(shot.c_str());
  }
  return r;
}

void ExpectCleanLoad(const BrowserRun& r, int charts) {
  ASSERT_EQ(r.rc, 0) << "chromium failed:\n" << r.log;
  EXPECT_EQ(r.log.find("Uncaught"), std::string::npos) << r.log;
  std::regex console_error(R"(CONSOLE\(\d+\)\].*(error|Error))");
  EXPECT_FALSE(std::regex_search(r.log, console_error)) << r.log;
  EXPECT_NE(r.dom.find("data-status=\"ok\""), std::string::npos) << "self-check did not pass";
  EXPECT_NE(r.dom.find(fmt::format("SELF-CHECK OK: {} charts rendered", charts)), std::string::npos);
  // Every chart got a positive mark count from the script.
  std::regex marks(R"re(data-marks="(\d+)")re");
  int n = 0;
  for (auto it = std::sregex_iterator(r.dom.begin(), r.dom.end(), marks); it != std::sregex_iterator(); ++it) {
    EXPECT_GT(std::stoi((*it)[1]), 0);
    ++n;
  }
  EXPECT_EQ(n, charts);
}

TEST(HtmlBrowser, HandBuiltReportLoadsCleanly) {
  std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty()) << "headless Chromium not found: install it with `apt-get install -y chromium` "
                                    "(scripts/install-deps.sh --with-browser, which `make test` runs)";
  fs::path dir = fs::temp_directory_path() / fmt::format("rlcost_html_test_{}", ::getpid());
  fs::create_directories(dir);
  Fixture f;
  fs::path html = dir / "r.html";
  std::ofstream(html) << RenderHtml(f.in);
  ExpectCleanLoad(RunChromium(chromium, html, dir), 9);  // + your run: its step and its dollars
  fs::remove_all(dir);
}

TEST(HtmlBrowser, SelfCheckCatchesAnEmptyChart) {
  // The self-check must be able to fail: a chart with no marks.
  std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty()) << "headless Chromium not found: install it with `apt-get install -y chromium`";
  fs::path dir = fs::temp_directory_path() / fmt::format("rlcost_html_neg_{}", ::getpid());
  fs::create_directories(dir);
  Fixture f;
  std::string page = RenderHtml(f.in);
  page.insert(page.find("<p id=\"selfcheck\""), "<svg class=\"chart\" id=\"empty\" viewBox=\"0 0 10 10\"></svg>");
  fs::path html = dir / "r.html";
  std::ofstream(html) << page;
  BrowserRun r = RunChromium(chromium, html, dir);
  ASSERT_EQ(r.rc, 0) << r.log;
  EXPECT_NE(r.dom.find("data-status=\"fail\""), std::string::npos);
  EXPECT_NE(r.dom.find("empty: empty"), std::string::npos);
  fs::remove_all(dir);
}

TEST(HtmlBrowser, SelfCheckCatchesCumulativeSegments) {
  // A segment drawn from the bar's start to its end (the old cumulative bug)
  // must fail the in-browser geometry check.
  std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty()) << "headless Chromium not found: install it with `apt-get install -y chromium`";
  fs::path dir = fs::temp_directory_path() / fmt::format("rlcost_html_cum_{}", ::getpid());
  fs::create_directories(dir);
  Fixture f;
  std::string page = RenderHtml(f.in);
  size_t a = page.find("id=\"chart-steptime\"");
  size_t seg = page.find("<rect class=\"seg\"", a);
  seg = page.find("<rect class=\"seg\"", seg + 1);  // the second segment of the first bar
  size_t w = page.find("width=\"", seg) + 7;
  page.replace(w, page.find('"', w) - w, "1000");
  fs::path html = dir / "r.html";
  std::ofstream(html) << page;
  BrowserRun r = RunChromium(chromium, html, dir);
  ASSERT_EQ(r.rc, 0) << r.log;
  EXPECT_NE(r.dom.find("data-status=\"fail\""), std::string::npos);
  EXPECT_NE(r.dom.find("bar geometry in chart-steptime"), std::string::npos);
  fs::remove_all(dir);
}

TEST(HtmlBrowser, FullStackReportFromTheCliRendersAllCharts) {
  std::string chromium = FindChromium();
  ASSERT_FALSE(chromium.empty()) << "headless Chromium not found: install it with `apt-get install -y chromium`";
  fs::path dir = fs::temp_directory_path() / fmt::format("rlcost_html_cli_{}", ::getpid());
  fs::create_directories(dir);
  fs::path html = dir / "full-stack.html";
  std::string scenario = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/full-stack.yaml";
  std::string cmd = std::string(RLCOST_BINARY) + " report " + scenario + " -o " + html.string() + " >" +
                    (dir / "cli.txt").string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc != 0 && Slurp(dir / "cli.txt").find("not yet") != std::string::npos) {
    GTEST_SKIP() << "estimator not built yet: " << Slurp(dir / "cli.txt");
  }
  ASSERT_EQ(rc, 0) << Slurp(dir / "cli.txt");
  BrowserRun r = RunChromium(chromium, html, dir, (dir / "shot.png").string());
  ExpectCleanLoad(r, 11);  // + the sensitivity tornado, your run's step and dollars
  // Laid out by the browser, every stacked segment matched its own value.
  EXPECT_TRUE(std::regex_search(r.dom, std::regex(R"(SELF-CHECK OK: 11 charts rendered; [1-9]\d* bar segments drawn to their own size)")));
  // The waterfall ran (it is the report's first chart, not the fallback note).
  EXPECT_EQ(r.dom.find("Waterfall not available"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "shot.png"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rlcost::report
