// End-to-end test of the web calculator as a person uses it: Debian's
// Chromium (through playwright-core) loads the page from `rlcost serve`,
// changes levers, sees the numbers and the chart change, follows the
// shareable link, downloads the YAML and the HTML report, with no console
// errors, and takes a screenshot that must not be blank.
// Usage: node e2e.mjs RLCOST_BINARY OUT_DIR
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, fail, withChromium } from "./chromium.mjs";

const [binary, outDir = tmpdir()] = process.argv.slice(2);

const server = spawn(binary, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const m = out.match(/listening on (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on("exit", (code) => reject(new Error("server exited " + code)));
  setTimeout(() => reject(new Error("server did not start in 10 s")), 10000);
});
try {
await withChromium({ acceptDownloads: true, viewport: { width: 1200, height: 900 } }, async ({ context, page, errors }) => {

  await page.goto(url + "/");
  await page.waitForFunction(() => document.body.dataset.updates === "1", null, { timeout: 20000 });
  const usd = () => page.textContent('b[data-kpi="1"]');
  const before = await usd();
  check(/^\$[0-9.,]+$/.test(before), `page shows $ per step (${before})`);
  // Likely ranges (error bars) beside the figures that have one, each holding
  // its figure, with the range's source said under them.
  const ranges = await page.$$eval(".kpi .range", (r) => r.map((x) => ({
    i: x.dataset.range, low: Number(x.dataset.low), high: Number(x.dataset.high), value: Number(x.dataset.value),
    text: x.textContent, bar: x.querySelectorAll("svg line").length, title: x.title })));
  check(ranges.length >= 4, `likely ranges shown (${ranges.length}: ${ranges.map((r) => r.text).join("; ")})`);
  check(ranges.every((r) => r.low < r.high && r.low <= r.value && r.value <= r.high && /^likely .+ – .+/.test(r.text)),
        "each range holds its figure");
  check(ranges.every((r) => r.bar === 3 && r.title.length > 0), "each range drawn as an error bar, its source on hover");
  const source = await page.textContent("#range_source");
  check(source.length > 20 && ranges.every((r) => r.title === source),
        `the ranges' source is stated once under the figures (${source.slice(0, 60)}...)`);
  const bars = await page.$$eval("#waterfall rect", (r) => r.map((x) => Number(x.getAttribute("height"))));
  check(bars.length >= 2 && bars.every((h) => h >= 0), `waterfall drawn (${bars.length} bars)`);

  // Lever: GPU type.
  await page.selectOption("#gpu", "b200");
  await page.waitForFunction(() => document.body.dataset.updates === "2", null, { timeout: 20000 });
  const after = await usd();
  check(after !== before, `changing the GPU to B200 changes $ per step (${before} -> ${after})`);
  const range2 = await page.textContent('.range[data-range="4"]');
  check(range2 !== ranges.find((r) => r.i === "4").text, `and the likely range of $ per run redraws (${range2})`);
  // Lever: group size; the step breakdown redraws.
  const stepBefore = await page.textContent("#breakdown text:last-of-type");
  await page.fill("#group_size", "4");
  await page.dispatchEvent("#group_size", "change");
  await page.waitForFunction(() => document.body.dataset.updates === "3", null, { timeout: 20000 });
  const stepAfter = await page.textContent("#breakdown text:last-of-type");
  check(stepAfter !== stepBefore, `group size 4 changes the step breakdown (${stepAfter})`);

  // The shareable URL holds the scenario.
  const shared = page.url();
  check(/#s=[A-Za-z0-9_-]+$/.test(shared), "the URL holds the scenario");
  const page2 = await context.newPage();
  page2.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page2.goto(shared);
  await page2.waitForFunction(() => document.body.dataset.updates === "1", null, { timeout: 20000 });
  check((await page2.inputValue("#gpu")) === "b200" && (await page2.inputValue("#group_size")) === "4",
        "the link opens the same scenario (B200, group 4)");
  check((await page2.textContent('b[data-kpi="1"]')) === (await usd()), "and the same $ per step");
  // The preset box names what the link opened, not the first preset.
  const presetShown = await page2.$eval("#preset", (s) => s.options[s.selectedIndex].textContent);
  check(presetShown === "the link's scenario", `the preset box says the link's scenario is shown (${presetShown})`);
  await page2.close();

  // Downloads: the scenario YAML (which the server must load back) and the HTML report.
  const [yamlDl] = await Promise.all([page.waitForEvent("download"), page.click("#dl_yaml")]);
  const yaml = readFileSync(await yamlDl.path(), "utf8");
  check(/gpu: b200/.test(yaml) && /group_size: 4/.test(yaml), "downloaded YAML holds the levers");
  const back = await fetch(url + "/v1/estimate", { method: "POST", headers: { "Content-Type": "application/yaml" }, body: yaml });
  const backJson = await back.json();
  check(back.status === 200, "the downloaded YAML loads (" + back.status + ")");
  const [htmlDl] = await Promise.all([page.waitForEvent("download"), page.click("#dl_html")]);
  const html = readFileSync(await htmlDl.path(), "utf8");
  check(html.startsWith("<!doctype html>") || html.startsWith("<!DOCTYPE html>"), "downloaded HTML report");

  // Every chart's numbers are the API's for the same inputs: the page's
  // scenario (from its URL) posted to /v1/estimate and /v1/waterfall.
  // An edited number field also sends "change" when it loses focus: wait
  // for a newer redraw, then for none to follow (the page draws the last).
  let updates = Number(await page.evaluate(() => document.body.dataset.updates));
  const nextUpdate = async (p = page) => {
    await p.waitForFunction((n) => Number(document.body.dataset.updates) > n, updates, { timeout: 30000 });
    for (;;) {
      const n = Number(await p.evaluate(() => document.body.dataset.updates));
      await p.waitForTimeout(400);
      if (Number(await p.evaluate(() => document.body.dataset.updates)) === n) { updates = n; break; }
    }
  };
  const post = async (path, body) => (await fetch(url + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json();
  const pageScenario = () => JSON.parse(Buffer.from(page.url().split("#s=")[1], "base64url").toString("utf8"));
  const at = (o, key) => key.split(".").reduce((x, k) => (x == null ? undefined : x[k]), o);
  const holdChartsToApi = async (what) => {
    const sc = pageScenario();
    const [est, wf] = await Promise.all([post("/v1/estimate", { scenario: sc }), post("/v1/waterfall", { scenario: sc })]);
    const kpis = await page.$$eval("b[data-key]", (b) => b.map((x) => ({ key: x.dataset.key, value: Number(x.dataset.value) })));
    check(kpis.length >= 6 && kpis.every((k) => Math.abs(k.value - at(est, k.key)) <= 1e-9 * Math.abs(at(est, k.key))),
          `${what}: the figures are /v1/estimate's (${kpis.map((k) => k.key + (Math.abs(k.value - at(est, k.key)) <= 1e-9 * Math.abs(at(est, k.key)) ? "" : ` ${k.value} != ${at(est, k.key)}`)).join(", ")})`);
    const segs = await page.$$eval("#breakdown rect", (r) => r.map((x) => ({ key: x.dataset.key, value: Number(x.dataset.value), w: Number(x.getAttribute("width")) })));
    const total = segs.reduce((a, x) => a + x.value, 0), width = segs.reduce((a, x) => a + x.w, 0);
    check(segs.length === 3 && segs.every((x) => Math.abs(x.value - at(est, x.key)) <= 1e-9 * at(est, x.key) && Math.abs(x.w - x.value / total * width) < 0.5),
          `${what}: the step chart draws step.rollout_s, train_s, other_s of /v1/estimate to scale (${segs.map((x) => x.value.toFixed(1)).join(", ")} s)`);
    const bars = await page.$$eval("#waterfall rect", (r) => r.map((x) => ({ id: x.dataset.id, value: Number(x.dataset.value), h: Number(x.getAttribute("height")) })));
    const want = [wf.baseline, ...wf.stages].filter((x) => x && x.values);
    const max = Math.max(...bars.map((b) => b.value)), hmax = Math.max(...bars.map((b) => b.h));
    check(bars.length === want.length && bars.every((b, i) => b.id === want[i].id && Math.abs(b.value - (want[i].values.usd_per_useful_sample || 0)) <= 1e-12 + 1e-9 * b.value && Math.abs(b.h - b.value / max * hmax) < 0.5),
          `${what}: the waterfall draws /v1/waterfall's $ per useful sample for its ${bars.length} stages, to scale`);
    return est;
  };
  const titles = [await page.textContent("#breakdown_title"), await page.textContent("#waterfall_title")];
  check(/seconds per step/.test(titles[0]) && /\$ per useful sample \(USD\)/.test(titles[1]), `each chart says what it plots and its unit (${titles.join(" | ")})`);
  await holdChartsToApi("B200, group 4");

  // Llama-3.1-70B with the rollout TP planned: it fits, and the page shows
  // the layout chosen, the runner-up and its cost, as the API's plan.* says.
  await page.selectOption("#model", "llama-3.1-70b");
  await nextUpdate();
  check((await page.textContent("#errors")) === "", "Llama-3.1-70B: no dead end (the rollout TP is planned)");
  check((await page.inputValue("#rollout_tp")) === "", "the rollout TP control says planned");
  const est70 = await holdChartsToApi("Llama-3.1-70B");
  check(est70.plan && (await page.textContent("#layout")).includes(est70.plan.layout), `the layout chosen is plan.layout (${est70.plan.layout})`);
  const ru = await page.$eval('#plan_table tr[data-row="runner-up"]', (r) => ({ usd: Number(r.dataset.usdPerStep), text: r.textContent }));
  check(Math.abs(ru.usd - est70.plan.runner_up_usd_per_step) < 1e-9 * ru.usd && ru.text.includes(est70.plan.runner_up),
        `the runner-up and its $ per step are plan.runner_up* (${est70.plan.runner_up}: $${ru.usd.toFixed(2)})`);
  check((await page.$$("#plan_why li")).length === est70.plan.why.length, "and why, line for line");
  // A rollout TP set by hand is what runs (layout.rollout_tp).
  await page.selectOption("#rollout_tp", "4");
  await nextUpdate();
  const estTp = await holdChartsToApi("rollout TP 4");
  check(estTp.layout.rollout_tp === 4, "rollout TP 4 set by hand is the layout used");

  // The workload's inputs, each changing the answer; the URL restores them all.
  // (The pass rate moves what a dollar buys, not the bill: $ per useful sample.)
  for (const [id, v, key] of [["response_tokens", "1000", "run.usd"], ["prompt_tokens", "500", "run.usd"], ["pass_rate", "0.5", "cost.usd_per_useful_sample"],
                              ["prompts_per_step", "32", "run.usd"], ["steps", "100", "run.usd"]]) {
    const before = await page.getAttribute(`b[data-key="${key}"]`, "data-value");
    await page.fill("#" + id, v);
    await page.$eval("#" + id, (e) => e.blur());  // as a person leaves the field: one "change"
    await nextUpdate();
    const after = await page.getAttribute(`b[data-key="${key}"]`, "data-value");
    check(after !== before && (await page.textContent("#errors")) === "", `${id} = ${v} changes ${key} (${Number(before).toPrecision(4)} -> ${Number(after).toPrecision(4)})`);
  }
  const sc = pageScenario();
  check(sc.environment.response_tokens.mean === 1000 && sc.environment.pass_rate.mean === 0.5 && sc.algorithm.prompts_per_step === 32 && sc.algorithm.steps === 100 && sc.placement.rollout_tp === 4,
        "the URL holds every input set");
  await holdChartsToApi("the workload changed");
  const page3 = await context.newPage();
  page3.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page3.goto(page.url());
  await page3.waitForFunction(() => document.body.dataset.updates === "1", null, { timeout: 20000 });
  const restored = {};
  for (const id of ["model", "rollout_tp", "response_tokens", "prompt_tokens", "pass_rate", "prompts_per_step", "steps", "group_size", "gpu"]) restored[id] = await page3.inputValue("#" + id);
  check(JSON.stringify(restored) === JSON.stringify({ model: "llama-3.1-70b", rollout_tp: "4", response_tokens: "1000", prompt_tokens: "500", pass_rate: "0.5", prompts_per_step: "32", steps: "100", group_size: "4", gpu: "b200" }),
        `reloading the link restores every input (${JSON.stringify(restored)})`);
  check((await page3.getAttribute('b[data-key="run.usd"]', "data-value")) === (await page.getAttribute('b[data-key="run.usd"]', "data-value")), "and the same $ per run");
  await page3.close();
  // Energy figures of the JSON on the page; $ to goal labelled as resting on the illustrative curve.
  const energy = await page.$$eval("b[data-key^='energy.']", (b) => b.length);
  check(energy === 2, "energy (kWh) and CO2e are shown");
  const est = await post("/v1/estimate", { scenario: pageScenario() });
  if (est.goal && est.goal.curve_is_illustrative && typeof est.goal.usd === "number") {
    const label = await page.$eval('b[data-key="goal.usd"]', (b) => b.previousElementSibling.textContent);
    check(/ILLUSTRATIVE learning curve/.test(label), `$ to goal says it rests on the illustrative learning curve (${label})`);
  }

  // The forecast of a pasted log: its points, the fitted curve and its band, as POST /v1/forecast returns them.
  let log = "step,val_acc\n";
  for (let k = 1; k <= 50; ++k) log += `${k},${(0.2 + 0.5 / (1 + (40 / k) ** 1.5) + 0.01 * Math.sin(k)).toFixed(4)}\n`;
  await page.fill("#fc_log", log);
  await page.fill("#fc_target", "0.6");
  await page.click("#fc_go");
  await page.waitForFunction(() => document.body.dataset.forecasts === "1", null, { timeout: 30000 });
  const fc = await post("/v1/forecast", { log, target: 0.6 });
  const pts = await page.$$eval("#fc_chart circle.point", (c) => c.map((x) => [Number(x.dataset.step), Number(x.dataset.value)]));
  check(pts.length === 50 && pts.every((p, i) => p[0] === fc.plot.points[i][0] && p[1] === fc.plot.points[i][1]), "the forecast chart draws the log's 50 points");
  check((await page.$$("#fc_chart path.fit")).length === 1 && (await page.$$("#fc_chart path.band")).length === 1, "and the fitted curve and its band");
  check(Number(await page.getAttribute("#fc_result", "data-steps")) === fc.forecast.steps_to_target,
        `the forecast step is /v1/forecast's (${fc.forecast.steps_to_target}): ${await page.textContent("#fc_result")}`);
  // The y axis follows the data and the target (the band, wide near step 0,
  // is clipped): the points span most of the plot's height.
  const fcGeom = await page.$eval("#fc_chart", (svg) => {
    const ys = [...svg.querySelectorAll("circle.point")].map((c) => Number(c.getAttribute("cy")));
    const band = svg.querySelector("path.band");
    return { span: Math.max(...ys) - Math.min(...ys), clipped: band ? band.getAttribute("clip-path") : null };
  });
  check(fcGeom.span > 0.4 * (300 - 10 - 36), `the forecast's points span ${fcGeom.span.toFixed(0)} px of the plot's 254`);
  check(fcGeom.clipped === "url(#fc_clip)", "the band is clipped to the plot");

  // Screenshot, checked not blank: colours counted in a canvas.
  const png = await page.screenshot({ fullPage: true });
  writeFileSync(join(outDir, "web-calculator.png"), png);
  const colours = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width; c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    let nonBg = 0;
    for (let i = 0; i < d.length; i += 4) {
      seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 30) nonBg++;
    }
    return { distinct: seen.size, nonBgShare: nonBg / (d.length / 4) };
  }, png.toString("base64"));
  check(colours.distinct > 20 && colours.nonBgShare > 0.05,
        `screenshot is not blank (${colours.distinct} colours, ${(colours.nonBgShare * 100).toFixed(1)}% off the background)`);
  check(errors.length === 0, "no console errors" + (errors.length ? ": " + errors.join(" | ") : ""));
  void backJson;
});
} finally {
  server.kill("SIGTERM");
}
