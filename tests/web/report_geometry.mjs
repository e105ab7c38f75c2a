// The HTML report's stacked bars as Chromium lays them out and paints them,
// held to the numbers of `rlcost estimate --json` for the same scenario:
//   1. every segment of every stacked bar ("Where a step's time goes", GPU
//      time, dollars by phase, the step timeline) starts where the previous
//      one ended, is as wide as its own value at the chart's scale, and the
//      segments add up to the bar;
//   2. the bar of "this scenario" in each chart draws the JSON's figures
//      (step.rollout_s, gpu_time.train_s, run.usd_by_phase.idle, ...);
//   3. a screenshot of the page is not blank, and in the pixels of the
//      step-time chart each phase's colour runs as long as its share of the
//      step (the geometry as painted, not as the DOM says);
//   4. the claims table holds `rlcost claims --json`'s verdicts, the
//      sensitivity tornado is drawn, the GPU price says what it is and its date.
// Usage: node report_geometry.mjs RLCOST_BINARY OUT_DIR SCENARIO.yaml
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, fail, withChromium } from "./chromium.mjs";

const [binary, outDir = tmpdir(), scenario] = process.argv.slice(2);
if (!scenario) fail("usage: node report_geometry.mjs RLCOST_BINARY OUT_DIR SCENARIO.yaml");

const html = join(outDir, "report.html");
execFileSync(binary, ["report", scenario, "-o", html], { stdio: ["ignore", "ignore", "inherit"] });
const json = JSON.parse(execFileSync(binary, ["estimate", scenario, "--json"], { encoding: "utf8" }));
const figure = (key) => key.split(".").reduce((o, k) => (o == null ? undefined : o[k]), json);

await withChromium({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 }, async ({ page, errors }) => {
  await page.goto("file://" + html);
  await page.waitForFunction(() => document.getElementById("selfcheck")?.dataset.status, null, { timeout: 20000 });

  // Rendered boxes (CSS px, after the SVG viewBox is scaled to the page).
  const charts = await page.$$eval("svg.chart", (svgs) => svgs.map((svg) => ({
    id: svg.id,
    bars: [...svg.querySelectorAll("g.bar")].map((g) => ({
      total: Number(g.dataset.total),
      segs: [...g.querySelectorAll("rect.seg")].map((r) => {
        const b = r.getBoundingClientRect();
        return { left: b.left, right: b.right, width: b.width, top: b.top, height: b.height,
                 value: Number(r.dataset.value), key: r.dataset.key || "", fill: r.getAttribute("fill") };
      }),
    })).filter((b) => b.segs.length > 0),
  })).filter((c) => c.bars.length > 0));
  const byId = Object.fromEntries(charts.map((c) => [c.id, c]));
  for (const id of ["chart-steptime", "chart-gputime", "chart-usdphase", "chart-timeline"]) {
    check(byId[id] && byId[id].bars.length > 0, `${id}: stacked bars drawn (${byId[id]?.bars.length ?? 0})`);
  }

  // 1. Own-size segments, side by side, summing to the bar, at one scale per chart.
  for (const c of charts) {
    const all = c.bars.flatMap((b) => b.segs);
    const biggest = all.reduce((m, s) => (s.value > m.value ? s : m));
    const scale = biggest.width / biggest.value;  // px per unit, from the widest segment
    let worst = 0;
    for (const b of c.bars) {
      for (let i = 0; i < b.segs.length; ++i) {
        const s = b.segs[i];
        worst = Math.max(worst, Math.abs(s.width - s.value * scale));
        if (i > 0) worst = Math.max(worst, Math.abs(s.left - b.segs[i - 1].right));
      }
      const drawn = b.segs[b.segs.length - 1].right - b.segs[0].left;
      worst = Math.max(worst, Math.abs(drawn - b.total * scale));
    }
    check(worst < 0.5, `${c.id}: ${all.length} segments in ${c.bars.length} bars each as wide as its value, ` +
                       `side by side, adding up to the bar (worst ${worst.toFixed(3)} px at ${scale.toFixed(4)} px/unit)`);
  }

  // 2. The first bar of each chart is this scenario: its segments are the JSON's figures.
  const holdToJson = (id, share) => {
    const bar = byId[id].bars[0];
    const keyed = bar.segs.filter((s) => s.key);
    check(keyed.length === bar.segs.length && keyed.length > 0, `${id}: every segment of this scenario's bar names its figure`);
    const want = keyed.map((s) => figure(s.key));
    check(want.every((v) => typeof v === "number" && v > 0), `${id}: the figures are in the JSON (${keyed.map((s) => s.key).join(", ")})`);
    const sum = want.reduce((a, v) => a + v, 0);
    const width = bar.segs[bar.segs.length - 1].right - bar.segs[0].left;
    // Widths in proportion to the figures, the bar as long as their sum (or
    // the whole axis for shares), at the scale the other bars share.
    const scale = width / (share ? 1 : sum);
    let worst = 0;
    keyed.forEach((s, i) => { worst = Math.max(worst, Math.abs(s.width - (share ? want[i] / sum : want[i]) * scale)); });
    check(worst < 0.5, `${id}: this scenario's segments are ${keyed.map((s, i) => `${s.key.split(".").pop()} ${want[i].toPrecision(4)}`).join(", ")} ` +
                       `drawn to scale (worst ${worst.toFixed(3)} px)`);
    if (!share) check(Math.abs(bar.total - sum) <= 1e-5 * sum, `${id}: the bar's total ${bar.total} is their sum ${sum.toPrecision(6)}`);
  };
  holdToJson("chart-steptime", false);
  holdToJson("chart-gputime", true);
  holdToJson("chart-usdphase", false);
  const stepSum = ["rollout_s", "reward_s", "logprob_s", "reference_s", "train_s", "weight_sync_s", "overhead_s", "offload_s"]
    .reduce((a, k) => a + json.step[k], 0);
  check(Math.abs(stepSum - json.step.time_s) <= 1e-6 * json.step.time_s, `the JSON's phases add up to step.time_s ${json.step.time_s.toFixed(2)} s`);
  const timeline = byId["chart-timeline"].bars[0];
  if (timeline.segs.every((s) => s.key || s.fill === "#d7dbe2")) holdToJson("chart-timeline", false);
  check(Math.abs(byId["chart-steptime"].bars[0].total - json.step.time_s) <= 1e-5 * json.step.time_s,
        "the step-time bar is step.time_s long");

  // 3. Pixels: the page is not blank, and the painted step-time bar shows each
  //    phase's colour over the width its figure says.
  const png = await page.screenshot({ fullPage: true });
  writeFileSync(join(outDir, "report.png"), png);
  const bar = byId["chart-steptime"].bars[0];
  // The bar in view, its box read again where it now is.
  const box = await page.$eval("#chart-steptime g.bar", (g) => {
    g.scrollIntoView({ block: "center" });
    const r = [...g.querySelectorAll("rect.seg")].map((x) => x.getBoundingClientRect());
    return { x0: r[0].left, x1: r[r.length - 1].right, y: r[0].top + r[0].height / 2 };
  });
  const { x0, x1 } = box;
  const row = await page.screenshot({ clip: { x: Math.floor(x0) - 2, y: Math.floor(box.y), width: Math.ceil(x1 - x0) + 4, height: 1 } });
  writeFileSync(join(outDir, "steptime-row.png"), row);
  const pixels = await page.evaluate(async ([full, line]) => {
    const load = async (b64) => {
      const img = new Image();
      img.src = "data:image/png;base64," + b64;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width; c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      return { w: img.width, d: g.getImageData(0, 0, img.width, img.height).data };
    };
    const a = await load(full);
    const seen = new Set();
    let nonBg = 0;
    for (let i = 0; i < a.d.length; i += 4) {
      seen.add((a.d[i] << 16) | (a.d[i + 1] << 8) | a.d[i + 2]);
      if (Math.abs(a.d[i] - a.d[0]) + Math.abs(a.d[i + 1] - a.d[1]) + Math.abs(a.d[i + 2] - a.d[2]) > 30) nonBg++;
    }
    const b = await load(line);
    const runs = [];
    for (let i = 0; i < b.d.length; i += 4) {
      const hex = "#" + [b.d[i], b.d[i + 1], b.d[i + 2]].map((v) => v.toString(16).padStart(2, "0")).join("");
      if (runs.length && runs[runs.length - 1].hex === hex) runs[runs.length - 1].n++;
      else runs.push({ hex, n: 1 });
    }
    return { distinct: seen.size, nonBgShare: nonBg / (a.d.length / 4), runs };
  }, [png.toString("base64"), row.toString("base64")]);
  check(pixels.distinct > 20 && pixels.nonBgShare > 0.05,
        `screenshot is not blank (${pixels.distinct} colours, ${(pixels.nonBgShare * 100).toFixed(1)}% off the background)`);
  // Pixels of each segment's colour along the bar's middle row; a segment
  // thinner than a pixel is blended away, so only those of 3 px or more count.
  const painted = (fill) => pixels.runs.filter((r) => r.hex === fill.toLowerCase()).reduce((a, r) => a + r.n, 0);
  const wide = bar.segs.filter((s) => s.width >= 3);
  check(wide.length >= 2, `the step-time bar has ${wide.length} segments wide enough to count in pixels`);
  let worstPx = 0;
  for (const s of wide) {
    const expected = figure(s.key) / json.step.time_s * (x1 - x0);
    worstPx = Math.max(worstPx, Math.abs(painted(s.fill) - expected));
  }
  check(worstPx <= 2, `in the painted step-time bar each phase's colour runs its share of step.time_s ` +
                      `(${wide.map((s) => `${s.key.split(".").pop()} ${painted(s.fill)} px`).join(", ")}; worst off by ${worstPx.toFixed(1)} px)`);
  // 4. The rest of what the report must show, as rendered: the essay's claims
  //    with the verdicts of `rlcost claims --json`, the sensitivity tornado,
  //    and the GPU price with what it is and its date.
  const claims = JSON.parse(execFileSync(binary, ["claims", scenario, "--json"], { encoding: "utf8" }));
  const rows = await page.$$eval("#claims tr[data-claim]", (r) => r.map((x) => ({
    id: x.dataset.claim, verdict: x.dataset.verdict, h: x.getBoundingClientRect().height })));
  check(rows.length === claims.length && rows.every((r, i) => r.id === claims[i].id && r.verdict === claims[i].verdict && r.h > 0),
        `the claims table shows the ${claims.length} claims with rlcost claims' verdicts (${rows.map((r) => r.verdict).join(", ")})`);
  const tornado = await page.$$eval("#chart-tornado rect[data-tip]", (r) => r.map((x) => x.getBoundingClientRect().width));
  check(tornado.length >= 4 && tornado.every((w) => w >= 0) && tornado.some((w) => w > 10), `the sensitivity tornado is drawn (${tornado.length} bars)`);
  const price = await page.$$eval("td", (t) => { const i = t.findIndex((x) => x.textContent === "GPU price"); return i >= 0 ? t[i + 1].textContent : ""; });
  check(/^\$[0-9.]+\/GPU-h, (market price as of 20\d\d-\d\d|ASSUMED price|list price|set )/.test(price), `the GPU price is shown with what it is and its date (${price.slice(0, 40)}...)`);
  const self = await page.textContent("#selfcheck");
  check(/^SELF-CHECK OK/.test(self), `the page's own check agrees (${self})`);
  // ... and says it to the test only: the line is not shown to the reader.
  check(!(await page.isVisible("#selfcheck")), "the self-check line is hidden from the reader");

  // 5. The report opens with the user's run: the first section is "Your run",
  //    its figures are `rlcost estimate --json`'s, the layout chosen and why.
  const first = await page.$eval("main section", (x) => x.id);
  check(first === "your-run", `the first section is the user's run (${first})`);
  const figs = await page.$$eval("#your-run b[data-key]", (b) => b.map((x) => ({ key: x.dataset.key, value: Number(x.dataset.value), text: x.textContent })));
  check(figs.length >= 6 && figs.every((f) => Math.abs(f.value - figure(f.key)) <= 1e-6 * Math.abs(figure(f.key))),
        `"Your run" shows the JSON's figures (${figs.map((f) => `${f.key} ${f.text}`).join(", ")})`);
  if (json.plan) {
    const chosen = await page.textContent("#plan-chosen");
    check(chosen.includes(json.plan.layout), `the layout chosen is the JSON's plan.layout (${json.plan.layout})`);
    if (json.plan.runner_up) {
      const ru = await page.$eval('#plan-table tr[data-row="runner-up"]', (r) => ({ usd: Number(r.dataset.usdPerStep), text: r.textContent }));
      check(Math.abs(ru.usd - json.plan.runner_up_usd_per_step) <= 1e-7 * json.plan.runner_up_usd_per_step && ru.text.includes(json.plan.runner_up),
            `the runner-up and its cost are plan.runner_up / plan.runner_up_usd_per_step (${ru.usd.toFixed(4)})`);
    }
    const why = await page.$$eval("#plan-why li", (l) => l.map((x) => x.textContent));
    check(why.length === json.plan.why.length && why.every((w, i) => w === json.plan.why[i]), `the plan's reasons are plan.why (${why.length} lines)`);
  }
  if (json.goal && json.goal.curve_is_illustrative) {
    const g = await page.textContent("#goal-answer");
    check(/ILLUSTRATIVE learning curve/.test(g), "the $ to goal says it rests on the illustrative learning curve, beside the figure");
  }
  // 6. Tooltips in units, never a raw exponent ("9.26e-14 s").
  const tips = await page.$$eval("[data-tip]", (t) => t.map((x) => x.dataset.tip));
  const raw = tips.filter((t) => /\d[eE][-+]?\d/.test(t));
  check(tips.length > 50 && raw.length === 0, `${tips.length} tooltips, none with a raw exponent${raw.length ? ": " + raw.slice(0, 3).join(" | ") : ""}`);
  // 7. The inputs and outputs tables fill their sections: no blank column beside them.
  for (const id of ["inputs", "outputs"]) {
    const gap = await page.$eval("#" + id, (sec) => {
      const cs = getComputedStyle(sec), t = sec.querySelector("table").getBoundingClientRect(), b = sec.getBoundingClientRect();
      return (b.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth)) - t.width;
    });
    check(gap < 2, `the ${id} table spans its section (blank beside it: ${gap.toFixed(1)} px, at most 2)`);
  }
  check(errors.length === 0, "no console errors" + (errors.length ? ": " + errors.join(" | ") : ""));
});

// 8. The waterfall's captions at 1400 and 800 px wide: no two text boxes meet.
//    And (issue #27 item 10) no large blank column beside the outputs or the
//    inputs table: over the table's height, the page column (main's content
//    box) either holds the table edge to edge, less its section's padding and
//    border, or something else is drawn in the strip beside it.
// Text an SVG chart clips: each text element's box against its chart's, in
// CSS px (a title run past the viewBox is cut off at the chart's edge).
const clippedText = (page) => page.$$eval("svg.chart", (svgs) => svgs.flatMap((svg) => {
  const c = svg.getBoundingClientRect();
  return [...svg.querySelectorAll("text")].filter((t) => {
    const b = t.getBoundingClientRect();
    return b.width > 0 && (b.left < c.left - 1 || b.right > c.right + 1 || b.top < c.top - 1 || b.bottom > c.bottom + 1);
  }).map((t) => `${svg.id}: "${t.textContent.slice(0, 60)}..."`);
}));

for (const width of [1400, 900, 800]) {
  await withChromium({ viewport: { width, height: 1000 }, deviceScaleFactor: 1 }, async ({ page }) => {
    // The check itself first, on a chart whose title runs past its right edge:
    // it must be caught, or a pass below would mean nothing.
    await page.setContent(`<svg class="chart" id="control" viewBox="0 0 300 60" style="width:300px">` +
                          `<text x="80" y="22" class="title">a title far too long for a chart three hundred wide</text></svg>`);
    check((await clippedText(page)).length === 1, "the clipped-text check catches a title run past its chart's edge");
    await page.goto("file://" + html);
    await page.waitForFunction(() => document.getElementById("selfcheck")?.dataset.status, null, { timeout: 20000 });
    for (const id of ["outputs", "inputs"]) {
      const g = await page.$eval("#" + id, (sec) => {
        const px = (e, p) => parseFloat(getComputedStyle(e)[p]) || 0;
        const t = sec.querySelector("table").getBoundingClientRect();
        const main = sec.closest("main") || document.body, m = main.getBoundingClientRect();
        const colLeft = m.left + px(main, "paddingLeft") + px(main, "borderLeftWidth");
        const colRight = m.right - px(main, "paddingRight") - px(main, "borderRightWidth");
        const frameL = px(sec, "paddingLeft") + px(sec, "borderLeftWidth"), frameR = px(sec, "paddingRight") + px(sec, "borderRightWidth");
        const left = t.left - colLeft - frameL, right = colRight - t.right - frameR;
        // Anything drawn in the strip beside the table, over its height (not the table's own section or what holds it).
        const beside = [...document.querySelectorAll("main *")].filter((e) => {
          if (e.contains(sec) || sec.contains(e)) return false;
          const b = e.getBoundingClientRect();
          return b.width > 0 && b.height > 0 && b.top < t.bottom && b.bottom > t.top && (b.left >= t.right - 1 || b.right <= t.left + 1);
        }).length;
        return { left, right, beside, column: colRight - colLeft, height: t.height };
      });
      check(g.height > 0 && (g.beside > 0 || Math.max(g.left, g.right) <= 24),
            `at ${width} px the ${id} table spans the page column (${g.column.toFixed(0)} px): blank ${g.left.toFixed(1)} px left of it, ` +
            `${g.right.toFixed(1)} px right of it, at most 24 where nothing else is beside it (${g.beside} elements beside)`);
    }
    for (const id of ["chart-waterfall", "chart-waterfall-goal", "chart-waterfall-step"]) {
      const boxes = await page.$$eval(`#${id} text`, (t) => t.map((x) => { const b = x.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom, s: x.textContent }; }));
      if (boxes.length === 0) continue;
      const hits = [];
      for (let i = 0; i < boxes.length; ++i) for (let j = i + 1; j < boxes.length; ++j) {
        const a = boxes[i], c = boxes[j];
        if (a.l < c.r && c.l < a.r && a.t < c.b && c.t < a.b) hits.push(`"${a.s}" / "${c.s}"`);
      }
      check(hits.length === 0, `${id} at ${width} px: ${boxes.length} captions and labels, none overlapping${hits.length ? ": " + hits.slice(0, 3).join("; ") : ""}`);
    }
    const clipped = await clippedText(page);
    check(clipped.length === 0, `at ${width} px no chart clips its text (titles, captions, labels)${clipped.length ? ": " + clipped.slice(0, 3).join("; ") : ""}`);
  });
}

// 9. --progress: the run's own log drawn as points, the fitted curve and its
//    band; the points are the log's, the forecast step `rlcost forecast --json`'s.
{
  const csv = join(outDir, "progress.csv");
  let text = "step,val_acc\n";
  for (let k = 1; k <= 60; ++k) text += `${k},${(0.2 + 0.5 / (1 + (40 / k) ** 1.5) + 0.01 * Math.sin(k)).toFixed(4)}\n`;
  writeFileSync(csv, text);
  const fhtml = join(outDir, "report-forecast.html");
  execFileSync(binary, ["report", scenario, "--progress", csv, "--target", "0.6", "-o", fhtml], { stdio: ["ignore", "ignore", "inherit"] });
  const fc = JSON.parse(execFileSync(binary, ["forecast", csv, "--target", "0.6", "--json"], { encoding: "utf8" })).forecast;
  await withChromium({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 }, async ({ page, errors }) => {
    await page.goto("file://" + fhtml);
    await page.waitForFunction(() => document.getElementById("selfcheck")?.dataset.status, null, { timeout: 20000 });
    const pts = await page.$$eval("#chart-forecast circle.point", (c) => c.map((x) => [Number(x.dataset.step), Number(x.dataset.value)]));
    const want = text.trim().split("\n").slice(1).map((l) => l.split(",").map(Number));
    check(pts.length === want.length && pts.every((p, i) => p[0] === want[i][0] && Math.abs(p[1] - want[i][1]) < 1e-9),
          `the forecast chart draws the log's ${want.length} points`);
    const paths = await page.$$eval("#chart-forecast path", (p) => p.map((x) => ({ cls: x.getAttribute("class"), w: x.getBoundingClientRect().width })));
    check(paths.some((p) => p.cls === "fit" && p.w > 100) && paths.some((p) => p.cls === "band" && p.w > 100), "the fitted curve and its band are drawn");
    const sub = await page.textContent("#forecast .sub");
    check(sub.includes(`step ${fc.steps_to_target.toFixed(0)}`), `the forecast step is rlcost forecast's (${fc.steps_to_target}): ${sub.slice(0, 60)}...`);
    check((await page.getAttribute("#selfcheck", "data-status")) === "ok", "the page's own check agrees");
    check(errors.length === 0, "no console errors" + (errors.length ? ": " + errors.join(" | ") : ""));
  });
}
