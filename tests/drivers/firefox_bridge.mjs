// Firefox for the Python tests: Debian's firefox-esr through puppeteer-core over WebDriver
// BiDi (Playwright cannot drive a stock Firefox, and Debian has no geckodriver). One request
// per line on stdin, one answer per line on stdout, in order:
//   {"op": "page"}                                  -> {"ok": pageId}   (a fresh browser context)
//   {"op": "goto" | "reload", "page", "url"?}
//   {"op": "evaluate", "page", "expression"}        -> {"ok": its value} (awaited)
//   {"op": "click" | "focus", "page", "finder"}     a JS expression that gives the element
//   {"op": "press" | "type", "page", "key" | "text"}
//   {"op": "errors", "page"}                        -> console errors and page errors so far
//   {"op": "close", "page"}
// A failure answers {"error": message}. The browser closes when stdin does (the test run ended
// or died), so no Firefox outlives its tests.
/* global process */
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const [executablePath] = process.argv.slice(2);
const browser = await puppeteer.launch({ browser: "firefox", executablePath, headless: true });
const pages = new Map(); // id -> {page, context, errors}
let nextId = 1;

function answer(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

async function newPage() {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const entry = { page, context, errors: [] };
  page.on("console", (m) => m.type() === "error" && entry.errors.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => entry.errors.push(`page error: ${e.message}`));
  const id = nextId++;
  pages.set(id, entry);
  return id;
}

async function element(page, finder) {
  const handle = await page.evaluateHandle(finder);
  const el = handle.asElement();
  if (!el) throw new Error(`no element for ${finder}`);
  return el;
}

const ops = {
  page: () => newPage(),
  goto: ({ page }, { url }) => page.goto(url, { waitUntil: "load" }).then(() => null),
  reload: ({ page }) => page.reload({ waitUntil: "load" }).then(() => null),
  evaluate: ({ page }, { expression }) => page.evaluate(expression),
  click: async ({ page }, { finder }) => (await element(page, finder)).click().then(() => null),
  focus: async ({ page }, { finder }) => (await element(page, finder)).focus().then(() => null),
  press: ({ page }, { key }) => page.keyboard.press(key).then(() => null),
  type: ({ page }, { text }) => page.keyboard.type(text).then(() => null),
  errors: (entry) => entry.errors.splice(0),
  close: async (entry, { page: id }) => {
    pages.delete(id);
    await entry.context.close();
    return null;
  },
};

answer({ ok: { version: await browser.version() } });
const lines = createInterface({ input: process.stdin });
// One request at a time, in order: the Python side waits for each answer.
let queue = Promise.resolve();
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const request = JSON.parse(line);
    try {
      const entry = request.op === "page" ? null : pages.get(request.page);
      if (request.op !== "page" && !entry) throw new Error(`no page ${request.page}`);
      answer({ ok: (await ops[request.op](entry, request)) ?? null });
    } catch (error) {
      answer({ error: String(error?.message || error) });
    }
  });
});
lines.on("close", () => {
  queue.then(() => browser.close()).finally(() => process.exit(0));
});
