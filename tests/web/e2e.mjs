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
