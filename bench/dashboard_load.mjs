// How fast the dashboard's views load in Debian's chromium (bench/dashboard_load.sh runs it
// against a controller that bench/dashboard_fill filled). Each view is loaded ROUNDS times in
// a fresh browser context (no cache): the time from the navigation's start until the page
// drew the view (the page's own clock, body[data-ready-ms], set when it says
// data-ready="1"), and the bytes of the API answers it read.
// Prints one line per view: median and slowest of the rounds, and the JSON's size.
//
// Environment: DASHBOARD_URL, CAMPAIGN, ROUNDS (default 5), CHROMIUM (default /usr/bin/chromium).
import { chromium } from "playwright-core";

const url = process.env.DASHBOARD_URL;
const campaign = process.env.CAMPAIGN;
const rounds = Number(process.env.ROUNDS || 5);
const c = "#/c/" + campaign;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});

// The first crash and the newest night, from the API (the views link to them).
const first = await (await fetch(url + "/api/campaigns/" + campaign + "/crashes")).json();
const nights = (await (await fetch(url + "/api/campaigns/" + campaign + "/nights")).json()).nights;
const views = [
  ["campaigns", "#/"],
  ["campaign (nodes 1-100)", c],
  ["crashes (page 1)", c + "/crashes"],
  ["nights", c + "/nights"],
];
if (first.crashes.length) views.push(["one crash", c + "/crash/" + first.crashes[0].signature]);
if (nights.length) views.push(["one night", c + "/night/" + nights[nights.length - 1].night]);

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

let failed = false;
console.log("view                      median ms  slowest ms  API bytes");
for (const [name, hash] of views) {
  const times = [];
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const bodies = [];
    page.on("response", (res) => {
      if (res.url().includes("/api/")) bodies.push(res.body().then((b) => b.length, () => 0));
    });
    await page.goto(url + "/" + hash);
    await page.waitForSelector(`body[data-ready="1"][data-view="${hash}"]`, { timeout: 60000 });
    const ms = Number(await page.evaluate(() => document.body.dataset.readyMs));
    const apiBytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    if (errors.length || (await page.locator("#view .error").count())) {
      console.error(name + ": " + (errors.join("; ") || (await page.locator("#view .error").textContent())));
      failed = true;
    }
    times.push(ms);
    bytes = Math.max(bytes, apiBytes);
    await context.close();
  }
  console.log(name.padEnd(25) + String(Math.round(median(times))).padStart(10) +
              String(Math.round(Math.max(...times))).padStart(12) + String(bytes).padStart(11));
}
await browser.close();
process.exit(failed ? 1 : 0);
