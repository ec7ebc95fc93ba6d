import { test } from "node:test";
import assert from "node:assert/strict";

import { mountOlInstall } from "../src/page/ol-install.js";
import { page } from "./fakes.mjs";

const HTML = '<div class="tl-ol-install"><pre><code class="tl-ol-command">pip install --extra-index-url '
  + '<span class="tl-site-root">https://&lt;this site&gt;/</span>simple/ tinyllm-ol</code></pre></div>';

test("the command names the site it is served from, under any path", () => {
  const { document } = page(HTML);
  const root = document.querySelector(".tl-ol-install");
  mountOlInstall(root, "https://example.org/course/");
  assert.equal(root.querySelector(".tl-ol-command").textContent,
    "pip install --extra-index-url https://example.org/course/simple/ tinyllm-ol");
});

test("a copy opened from disk keeps the placeholder", () => {
  const { document } = page(HTML);
  const root = document.querySelector(".tl-ol-install");
  mountOlInstall(root, "file:///home/me/site/");
  assert.match(root.querySelector(".tl-ol-command").textContent, /<this site>/);
});
