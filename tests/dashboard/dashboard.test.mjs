// The dashboard in Debian's chromium, driven by playwright-core (node --test), against a
// controller that run_dashboard_test.sh started with two nodes fuzzing a target that
// crashes, and a campaign "fill" of 250 simulated nodes with 5 nights of reports. Each view: wait until the page says it is drawn, check what it shows, save a
// screenshot into SHOTS_DIR.
//
// Environment: DASHBOARD_URL (http://127.0.0.1:PORT), CAMPAIGN, SHOTS_DIR, EXPORT_DIR (the
// campaign's crashes as `pollen crashes export` wrote them), CHROMIUM (default
// /usr/bin/chromium).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const url = process.env.DASHBOARD_URL;
const campaign = process.env.CAMPAIGN;
const shots = process.env.SHOTS_DIR;
const exported = process.env.EXPORT_DIR;
let browser, page;
const pageErrors = [];

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
});

after(async () => { await browser?.close(); });

// Until the page says the view of `hash` is drawn (a new hash is the same document: the
// view's name tells its drawing from the one before).
async function drawn(hash) {
  await page.waitForSelector(`body[data-ready="1"][data-view="${hash}"]`, { timeout: 20000 });
  assert.deepEqual(pageErrors, []);
}

async function open(hash, shot) {
  await page.goto(url + "/" + hash);
  await drawn(hash);
  await page.screenshot({ path: path.join(shots, shot), fullPage: true });
}

// Pixels of a canvas that are not transparent: a drawn plot has thousands.
async function drawnPixels(id) {
  return page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
    return n;
  }, id);
}

test("the campaigns view lists the campaign with its crashes", async () => {
  await open("#/", "campaigns.png");
  const row = page.locator("#campaigns tbody tr", { hasText: campaign });
  assert.equal(await row.count(), 1);
  const cells = await row.locator("td").allTextContents();
  assert.ok(Number(cells[10].replace(/,/g, "")) >= 1, "crashes: " + cells[10]);
});

test("one campaign: its plots are drawn and its two nodes listed", async () => {
  await open("#/c/" + campaign, "campaign.png");
  for (const id of ["chart-coverage", "chart-corpus", "chart-speed", "chart-nodes"]) {
    assert.ok(await drawnPixels(id) > 1000, id + " has not drawn");
  }
  // The coverage plot has at least two samples with edges: a line above zero, not a point.
  const edges = await page.evaluate(() => Chart.getChart("chart-coverage").data.datasets[0].data);
  assert.ok(edges.filter((v) => v > 0).length >= 2, "edges: " + JSON.stringify(edges));
  const bars = await page.evaluate(() => Chart.getChart("chart-nodes").data.datasets[0].data);
  assert.equal(bars.filter((v) => v > 0).length, 2, "exec/s per node: " + JSON.stringify(bars));
  // Both nodes, which ended cleanly before the test (so that the crash stays as exported).
  assert.equal(await page.locator("#nodes tbody tr").count(), 2);
  assert.equal(await page.locator("#nodes tbody td.left").count(), 2);
});

test("the crashes view counts the crash, and its reproducer downloads as it was found", async () => {
  await open("#/c/" + campaign + "/crashes", "crashes.png");
  const first = page.locator("#crashes tbody tr").first();
  const cells = await first.locator("td").allTextContents();
  const signature = cells[0].trim();
  assert.ok(Number(cells[2].replace(/,/g, "")) >= 1, "count: " + cells[2]);
  await first.locator("a").click();
  await drawn("#/c/" + campaign + "/crash/" + encodeURIComponent(signature));
  await page.screenshot({ path: path.join(shots, "crash.png"), fullPage: true });
  assert.match(await page.locator("#report").textContent(), /\S/);
  assert.match(await page.locator("code.cmd").textContent(), new RegExp("pollen repro --campaign=" + campaign));
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#reproducer")]);
  const got = fs.readFileSync(await download.path());
  const file = fs.readdirSync(exported).find((f) => f.endsWith("-" + signature));
  assert.ok(file, "no exported reproducer for " + signature);
  assert.deepEqual(got, fs.readFileSync(path.join(exported, file)));
});

test("the node table pages through 250 nodes, 100 at a time", async () => {
  await open("#/c/fill", "campaign-fill.png");
  const ids = async () => (await page.locator("#nodes tbody tr td:first-child").allTextContents()).map((t) => t.trim());
  const first = await ids();
  assert.equal(first.length, 100);
  assert.equal(first[0], "fill-00001");
  await page.click("text=next →");
  await drawn("#/c/fill/nodes/1");
  const second = await ids();
  assert.equal(second.length, 100);
  assert.equal(second[0], "fill-00101");
  await page.click("text=next →");
  await drawn("#/c/fill/nodes/2");
  const third = await ids();
  assert.equal(third.length, 50);
  assert.equal(third[49], "fill-00250");
  assert.equal(await page.locator("text=next →").count(), 0);
  assert.match(await page.locator("h2", { hasText: "Nodes" }).textContent(), /201–250 of 250/);
});

test("the nights view plots coverage and crashes night by night, and opens a night", async () => {
  await open("#/c/fill/nights", "nights.png");
  assert.equal(await page.locator("#nights tbody tr").count(), 5);
  for (const id of ["chart-nights-coverage", "chart-nights-crashes"]) {
    assert.ok(await drawnPixels(id) > 1000, id + " has not drawn");
  }
  // dashboard_fill's nights: branches covered 5000 + 40 k (night 3 dips by 60).
  const branches = await page.evaluate(() => Chart.getChart("chart-nights-coverage").data.datasets[0].data);
  assert.deepEqual(branches, [5000, 5040, 5080, 5060, 5160]);
  // New crashes on the night k % 5 == 2 (1 + k % 3 of them), fixed on k % 4 == 1.
  const news = await page.evaluate(() => Chart.getChart("chart-nights-crashes").data.datasets[0].data);
  assert.deepEqual(news, [0, 0, 3, 0, 0]);
  const fixed = await page.evaluate(() => Chart.getChart("chart-nights-crashes").data.datasets[1].data);
  assert.deepEqual(fixed, [0, 1, 0, 0, 0]);
  // The newest night first; open the night with the new crashes.
  const nights = (await page.locator("#nights tbody tr td:first-child").allTextContents()).map((t) => t.trim());
  assert.deepEqual(nights, ["2026-01-05", "2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
  await page.click("text=2026-01-03");
  await drawn("#/c/fill/night/2026-01-03");
  await page.screenshot({ path: path.join(shots, "night.png"), fullPage: true });
  assert.match(await page.locator("#night-report").textContent(), /night of 2026-01-03/);
  assert.match(await page.locator("h1").textContent(), /new-crashes/);
});

test("the crashes say what the newest night's ledger says: fixed, or open", async () => {
  await open("#/c/fill/crashes", "crashes-fill.png");
  const words = (await page.locator("#crashes tbody td.nightly").allTextContents()).map((t) => t.trim());
  assert.equal(words.length, 30);
  assert.deepEqual(words.filter((w) => w.startsWith("fixed")), ["fixed in b1001 (2026-01-02)"]);
  assert.equal(words.filter((w) => w === "open since 2026-01-01").length, 2);
  assert.equal(words.filter((w) => w === "–").length, 27);
});

test("hostile paths get an error, never the page's data", async () => {
  for (const p of ["/api/campaigns/..%2f..%2fetc", "/api/campaigns/" + "a".repeat(3000), "/api/nothing",
                   "/api/campaigns/fill?nodes_limit=0", "/api/campaigns/fill?nodes_limit=99999999999999999999",
                   "/api/campaigns/fill/nights/2026-13-01", "/api/campaigns/fill/nights/2026-1-1",
                   "/api/campaigns/fill/nights/2025-01-01"]) {
    const res = await page.request.get(url + p);
    assert.ok(res.status() >= 400 && res.status() < 500, p + ": " + res.status());
  }
});
