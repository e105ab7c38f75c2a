// What the browser tests share: pass/fail reporting, and Debian's Chromium
// (through playwright-core) launched headless in a throwaway profile, with the
// page's console errors collected.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const fail = (msg) => { console.error("FAIL: " + msg); process.exitCode = 1; throw new Error(msg); };
export const check = (ok, msg) => { if (!ok) fail(msg); console.log("ok: " + msg); };

// Runs `body({ context, page, errors })` in a fresh headless Chromium
// (`options`: playwright's launch options, e.g. viewport), then closes it and
// removes its profile whatever happened.
export async function withChromium(options, body) {
  const profile = mkdtempSync(join(tmpdir(), "rlcost-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      ...options,
    });
    const errors = [];
    const page = context.pages()[0] || (await context.newPage());
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    await body({ context, page, errors });
  } finally {
    if (context) await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
