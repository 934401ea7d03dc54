import { sentence, thousands } from "../format.js";
import { liveView, markInvalid, outOfRange, unreadableNumber } from "../live-view.js";
import { urlState } from "../url-state.js";

// ---- Lesson 5: the stacked memory bar, a training-memory estimator for any decoder-only model -------
export default function mount(root) {
  const form = root.querySelector("form");
  const chart = root.querySelector(".c9-chart");
  const summary = root.querySelector(".c9-summary");
  const cards = root.querySelector(".c9-cards");
  const tbody = root.querySelector(".c9-segments tbody");
  const explain = root.querySelector(".c9-explain");
  const parts = [...root.querySelectorAll("[data-part]")];
  const note = root.querySelector(".c9-model-note");
  const s2Label = root.querySelector(".c9-s2-label");
  const configBox = form.elements.config, fileInput = form.elements.config_file;
  const menu = form.elements.model, pastedOption = menu.querySelector('option[value="pasted"]');
  const result = root.querySelector(".c9-config-result");
  // Two log-scaled sliders, each over its stops (2^k and 3·2^k), beside a number box for any value.
  const sliders = [
    { range: form.elements.s_stop, box: form.elements.s, stops: root.dataset.stops.split(",").map(Number), name: "s", zh: `${form.elements.s_stop.labels[0].textContent} ` },
    { range: form.elements.b_stop, box: form.elements.b, stops: root.dataset.bStops.split(",").map(Number), name: "b", zh: `${form.elements.b_stop.labels[0].textContent} ` },
  ];
  let view = JSON.parse(root.dataset.default);
  let config = view.params.config; // the config.json in use ("" : the model chosen in the select)
  let listModel = view.params.model; // the model chosen in the list (the menu names a pasted config instead)
  let typedBox = null; // the number box whose typed value the latest input sent
  let emptyAsked = false; // the config box's 「用这个配置计算」 was pressed on an empty box
  let configAsked = null; // the box or file picker the latest input came from: its answer is told beside the box

  const nearestStop = (stops, v) => stops.reduce((best, x, i) => Math.abs(Math.log(x / v)) < Math.abs(Math.log(stops[best] / v)) ? i : best, 0);
  // Python judges a typed value; a slider only follows a value inside its own range.
  const inRange = (sl, v) => Number.isInteger(v) && v >= sl.stops[0] && v <= sl.stops[sl.stops.length - 1];
  // The slider speaks the value in use: a typed 5,000 rather than the stop 4,096 the knob rests on.
  const label = (sl) => {
    const typedValue = Number(sl.box.value);
    const v = inRange(sl, typedValue) ? typedValue : sl.stops[Number(sl.range.value)];
    sl.range.setAttribute("aria-valuetext", `${sl.name} = ${thousands(v)}`);
  };
  // A refused box is told why right under it (on a phone the status line is half a screen below).
  for (const sl of sliders) sl.message = sl.box.parentElement.querySelector(".c9-box-message");
  const tellBox = (box, text) => {
    for (const sl of sliders) {
      const mine = sl.box === box;
      sl.message.hidden = !mine;
      if (mine) { sl.message.textContent = text; sl.message.dataset.kind = "error"; }
      markInvalid(sl.box, mine, sl.message);
    }
  };

  // The menu shows the model in use: a pasted config.json has its own option, never chosen from the list.
  const showModel = (v) => {
    listModel = v.params.model;
    pastedOption.textContent = v.params.config ? v.menu_label : pastedOption.dataset.idle;
    menu.value = v.params.config ? "pasted" : v.params.model;
  };
  // The answer to the config box's buttons is told right under them too (on a phone the bar is a screen
  // and more below): the summary, or why the config was refused, and a link down to the bar.
  const tellBeside = (text) => {
    const link = document.createElement("a");
    link.href = "#mb-chart";
    link.textContent = "看下方的条形图和逐项的账";
    result.replaceChildren(/[。；：]$/.test(text) ? text : `${text} `, link, "。"); // no space after 「。」
    result.dataset.kind = "";
    result.hidden = false;
    result.scrollIntoView({ block: "nearest" }); // only as far as needed; the focus stays on the button
  };
  const syncControls = (p) => {
    form.elements.card.value = p.card;
    form.elements.recipe.value = p.recipe;
    for (const sl of sliders) { sl.box.value = p[sl.name]; sl.range.value = nearestStop(sl.stops, p[sl.name]); label(sl); }
    for (const r of form.elements.mode) r.checked = r.value === p.mode;
    form.elements.s2_full_only.checked = p.s2_full_only;
    config = p.config;
    if (config) { configBox.value = config; configBox.closest("details").open = true; }
  };
  const draw = (v, restoring) => {
    view = v;
    tellBox(null); // every box's value was accepted
    if (restoring) syncControls(v.params); // a state opened from the address: the controls show it
    // A typed "1e3" that Python read as 1,000 is shown as 1000 (a number still being typed is left alone).
    else for (const sl of sliders) {
      const n = v.params[sl.name];
      if (Number(sl.box.value) === n && sl.box.value !== String(n)) sl.box.value = n;
    }
    form.elements.recipe.value = v.params.recipe; // the lab's model trained in FP32, whatever was chosen
    summary.textContent = v.summary;
    cards.textContent = v.cards;
    note.textContent = v.model_note;
    s2Label.textContent = v.s2_label; // the switch counts the layers of the model shown
    note.hidden = !v.model_note;
    showModel(v);
    if (configAsked) {
      configAsked = null;
      markInvalid(configBox, false, result);
      markInvalid(fileInput, false, result);
      // 「用这个配置计算」 on an empty box keeps the list's model: said so, not as a return from elsewhere
      const how = v.params.config ? "已算好" : emptyAsked ? "框里是空的，所以用的是列表里的模型" : "已回到列表里的模型";
      tellBeside(`${how}：${v.summary}`);
    }
    document.dispatchEvent(new CustomEvent("c9:memory-bar", { detail: v.params }));
    const shown = new Set(v.segments.map((seg) => seg.key));
    for (const row of tbody.rows) row.hidden = !shown.has(row.dataset.key); // e.g. no master weights in FP32
    // The rows in the bar's order (another recipe's rows were built after the activations'), moved only when
    // out of it: a moved row would lose the focus of a reader on its button.
    const order = v.segments.map((seg) => tbody.querySelector(`tr[data-key="${seg.key}"]`)).filter(Boolean);
    const now = [...tbody.rows].filter((row) => !row.hidden);
    if (order.some((row, i) => row !== now[i])) for (const row of order) tbody.append(row);
    for (const seg of v.segments) {
      const row = tbody.querySelector(`tr[data-key="${seg.key}"]`);
      if (!row) continue;
      row.querySelector("button.c9-seg").lastChild.textContent = seg.label; // e.g. 权重(FP32) for the lab's model
      const swatch = row.querySelector(".c9-swatch"); // a label's colour and pattern, as the ledger draws them
      swatch.style.backgroundColor = seg.color;
      swatch.dataset.pattern = seg.pattern;
      row.cells[1].textContent = seg.text;
      row.cells[2].textContent = seg.formula;
    }
    if (explain.dataset.key) showSegment(explain.dataset.key);
    chart.innerHTML = v.chart; // SVG markup from Python, the same the build wrote into the page
    // The tables and notes: markup from Python, each in its box (a box that scrolls keeps its cue).
    for (const el of parts) {
      const html = v.detail[el.dataset.part] || "";
      // (an empty box keeps a table with a class: course.js found the box that scrolls from it)
      el.innerHTML = html || (el.tagName === "DIV" ? '<table class="c9-empty"></table>' : "");
      el.hidden = !html;
      // course.js named a box that scrolls after its table's caption: the caption now names another model
      const caption = el.querySelector("caption")?.textContent.trim();
      if (caption && el.hasAttribute("aria-label")) el.setAttribute("aria-label", `${caption}（可左右滑动）`);
    }
  };
  const showSegment = (key) => {
    const seg = view.segments.find((s) => s.key === key);
    if (!seg) return;
    explain.dataset.key = key;
    explain.textContent = `${seg.label}：${seg.text}，按 ${seg.formula} 计。${seg.note}`;
  };
  const params = () => ({
    model: listModel,
    config,
    s: sliders[0].box.value.trim(),
    b: sliders[1].box.value.trim(),
    mode: form.elements.mode.value,
    card: form.elements.card.value,
    recipe: form.elements.recipe.value,
    s2_full_only: form.elements.s2_full_only.checked,
  });
  const { send, say, refuse } = liveView("memory-bar", root, draw, {
    markEdited: false, // the boxes and the config box are marked here (the config box points at its own message)
    said: (text, kind) => {
      if (kind === "error" && typedBox) tellBox(typedBox, text); // Python refused what was typed
      if (!configAsked || kind === "ok") return;
      if (kind === "error") { markInvalid(configAsked, true, result); configAsked = null; }
      result.textContent = text; // Python starting, or why the config was refused
      result.dataset.kind = kind === "error" ? "error" : ""; // course.css marks a refusal as the status does
      result.hidden = false;
    },
  });

  const onInput = (e) => {
    typedBox = sliders.some((sl) => e.target === sl.box) ? e.target : null;
    for (const sl of sliders) {
      if (e.target === sl.range) sl.box.value = sl.stops[Number(sl.range.value)];
      if (e.target === sl.box) {
        const v = Number(sl.box.value);
        if (inRange(sl, v)) sl.range.value = nearestStop(sl.stops, v);
      } else if (!inRange(sl, Number(sl.box.value))) {
        sl.box.value = view.params[sl.name]; // another control moved: drop a rejected typed value, keep the last good one
        if (sl.box.hasAttribute("aria-invalid")) tellBox(null);
      }
      label(sl);
    }
    if (e.target === menu) { config = ""; listModel = menu.value; } // a model from the list replaces a pasted config
    // another control moved: drop a config Python refused, keep the last good one (the box keeps the text)
    else if (e.target !== configBox) config = view.params.config;
    configAsked = e.target === configBox ? configBox : null;
    if (!configAsked) result.hidden = true; // what it said is about an earlier state
    send(params());
  };
  // From a typed value between two stops (1,000), the keys go to the stops on either side of it. The knob
  // rests on the nearer one (1,024), from which → would skip to 1,536 and End, at the last stop, do nothing.
  const KEY_TO = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, Home: -Infinity, End: Infinity };
  for (const sl of sliders) {
    sl.range.addEventListener("keydown", (e) => {
      const v = Number(sl.box.value), to = KEY_TO[e.key];
      if (to === undefined || !inRange(sl, v) || sl.stops.includes(v)) return;
      const i = to === Infinity ? sl.stops.length - 1 : to === -Infinity ? 0
        : to > 0 ? sl.stops.findIndex((x) => x > v) : sl.stops.findLastIndex((x) => x < v);
      e.preventDefault();
      sl.range.value = i;
      sl.range.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  const boxes = new Set([...sliders.map((sl) => sl.box), configBox, fileInput]);
  form.addEventListener("input", (e) => { if (!boxes.has(e.target)) onInput(e); });
  // Typed values are sent once committed. A number box holding what it cannot read (1e400) reports "",
  // so say what is wrong rather than letting Python call it empty.
  // Out of the box's range (b = 0) is said at once too, in Python's words, not after Python has started.
  const typed = (sl) => {
    const bad = unreadableNumber(sl.box, sl.zh) || outOfRange(sl.box, sl.zh);
    if (bad) { typedBox = sl.box; refuse(bad); } else onInput({ target: sl.box });
  };
  for (const sl of sliders) sl.box.addEventListener("change", () => typed(sl));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const sl = sliders.find((x) => x.box === document.activeElement);
    if (sl) typed(sl);
  });

  // A config.json, pasted or read from a file on the reader's machine (FileReader: nothing leaves the page).
  const useConfig = (text) => {
    // Far too long to be a config.json: said at once in Python's words (the build wrote them into the box),
    // not after Python has started (seconds on a cold page). Python counts characters, not UTF-16 units.
    const length = [...text].length;
    if (length > Number(configBox.dataset.maxChars)) {
      configAsked = configBox;
      refuse(sentence(`输入有误：${configBox.dataset.tooLong.replace("{n}", thousands(length))}`));
      return;
    }
    config = text;
    onInput({ target: configBox });
  };
  form.elements.config_use.addEventListener("click", () => { emptyAsked = !configBox.value.trim(); useConfig(configBox.value); });
  form.elements.config_clear.addEventListener("click", () => { emptyAsked = false; configBox.value = ""; useConfig(""); });
  // The example: a config.json anchor-model.json records (the build wrote it into the button).
  form.elements.config_example.addEventListener("click", (e) => { emptyAsked = false; configBox.value = e.currentTarget.dataset.example; useConfig(configBox.value); });
  // A file the box cannot use is refused beside the box, and the box keeps what it held.
  const refuseFile = (text) => { configAsked = fileInput; say(text, "error"); };
  fileInput.addEventListener("change", () => {
    emptyAsked = false;
    const file = fileInput.files[0];
    if (!file) return;
    const tooBig = () => refuseFile(`「${file.name}」太大，不像 config.json：请选模型目录里的 config.json。`);
    if (file.size > Number(configBox.dataset.maxChars) * 4) { tooBig(); return; }
    const reader = new FileReader();
    reader.onload = () => {
      const text = String(reader.result);
      // A binary file read as text holds NULs or U+FFFD (bytes that are not UTF-8): not worth showing in the box.
      if (text.includes("\0") || text.includes("\uFFFD")) { refuseFile(`「${file.name}」不是文本文件，不像 config.json：请选模型目录里的 config.json。`); return; }
      // Longer than Python takes (a 300 KB log picked by mistake): refused by name, and the box keeps its text.
      if ([...text].length > Number(configBox.dataset.maxChars)) { tooBig(); return; }
      configBox.value = text;
      useConfig(text);
    };
    reader.onerror = () => refuseFile("没能读出这个文件：请换一个，或把内容粘贴进上面的框。");
    reader.readAsText(file);
    fileInput.value = ""; // choosing the same file again (edited since) is a change too
  });

  tbody.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-key]");
    if (b) showSegment(b.dataset.key);
  });

  // The bar's state in the address (url-state.js): ?mb.model=…&mb.s=…&mb.b=…&mb.mode=…&mb.card=…&mb.s2=1,
  // and a pasted config while it is short (url-state.js leaves a long one out); older links without the "mb."
  // still open. Python checks the values; a bad one gets the same Chinese message as a bad typed value,
  // and the default state stays.
  const url = urlState(root, "mb", { model: "model", config: "config", s: "s", b: "b", mode: "mode", card: "card", s2: "s2_full_only", recipe: "recipe" },
    { legacy: ["model", "s", "b", "mode", "s2"] });
  url.restore(send, params());

  chart.addEventListener("click", (e) => {
    const key = e.target.closest("rect[data-key]")?.dataset.key;
    if (key) showSegment(key);
  });
  performance.mark("c9:widget-ready");
  return null;
}
