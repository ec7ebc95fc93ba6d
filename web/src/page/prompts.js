/**
 * Prompt widgets: numeric answers, multiple-choice checks, predict-first questions and the content a
 * prediction unlocks. Each mounts on a placeholder emitted by mdwidgets and reads its data from the JSON
 * script inside it. Learner text reaches the DOM only as text.
 */
import { parseAnswer, judgeAnswer, REVEAL_AFTER } from "./numeric.js";
import { keys } from "./store.js";
import { el } from "./dom.js";
import { choiceFeedback } from "./feedback.js";
import { widgetData } from "./widgets.js";

let uid = 0;

/** Mount a numeric prompt. */
export function mountNumeric(root, store) {
  const data = widgetData(root, { exercise: "string", prompt: "string", answer: "array" });
  const key = keys.prompt(data.exercise, data.prompt);
  const id = `tl-num-${(uid += 1)}`;
  const form = el("form", { class: "tl-answer", novalidate: "" });
  const label = el("label", { for: id }, data.answer.length === 1 ? "Your answer" : `Your answer (${data.answer.length} numbers)`);
  const input = el("input", {
    id, type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false", maxlength: "2000",
    "aria-describedby": `${id}-fb`, placeholder: data.answer.length === 1 ? "e.g. 0.25 or 1/4" : "e.g. 0.2, 0.3, 0.5",
  });
  const submit = el("button", { type: "submit", class: "md-button tl-submit" }, "Check answer");
  const show = el("button", { type: "button", class: "tl-link" }, "Show the worked answer");
  const feedback = el("p", { class: "tl-feedback", id: `${id}-fb`, role: "status", "aria-live": "polite" });
  form.append(label, input, submit, show);
  const explain = root.querySelector(":scope > .tl-explain");
  root.insertBefore(form, explain);
  root.insertBefore(feedback, explain);

  let state = store.get(key, { value: "", verdict: "", tries: 0, revealed: false });
  if (typeof state !== "object" || state === null) state = { value: "", verdict: "", tries: 0, revealed: false };

  function render(message) {
    if (state.verdict) root.dataset.verdict = state.verdict;
    else delete root.dataset.verdict;
    feedback.textContent = message || "";
    feedback.className = `tl-feedback ${state.verdict ? `tl-${state.verdict}` : ""}`;
    input.setAttribute("aria-invalid", state.verdict === "incorrect" ? "true" : "false");
    const open = state.revealed || state.verdict === "correct";
    explain.hidden = !open;
    show.hidden = open;
  }

  function evaluate(value) {
    const parsed = parseAnswer(value, data.answer.length);
    if (parsed.error) return { verdict: "", message: parsed.error };
    return judgeAnswer(parsed.values, data);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const outcome = evaluate(input.value);
    state.value = input.value;
    if (!outcome.verdict) {
      render(outcome.message); // unreadable input: explain, do not count it as a try, keep the last verdict
      store.set(key, state);
      return;
    }
    state.verdict = outcome.verdict;
    if (outcome.verdict === "incorrect") state.tries += 1;
    let message = outcome.message;
    if (outcome.verdict === "incorrect" && state.tries >= REVEAL_AFTER && !state.revealed) {
      state.revealed = true;
      message += " The worked answer is below.";
    }
    store.set(key, state);
    render(message);
  });
  show.addEventListener("click", () => {
    state.revealed = true;
    store.set(key, state);
    render(feedback.textContent);
    explain.focus?.();
  });
  input.value = state.value || "";
  render(state.value && state.verdict ? evaluate(state.value).message : "");
}

/** Mount a multiple-choice check or a predict-first question. */
export function mountChoice(root, store) {
  const data = widgetData(root, { exercise: "string", prompt: "string", options: "array" });
  const key = keys.prompt(data.exercise, data.prompt);
  const buttons = [...root.querySelectorAll(".tl-option")];
  const feedback = el("p", { class: "tl-feedback", role: "status", "aria-live": "polite" });
  const predicted = el("p", { class: "tl-predicted" });
  root.querySelector(".tl-options").after(feedback);
  if (data.showsPrediction) root.querySelector(".tl-question").after(predicted);
  const predictKey = data.showsPrediction ? keys.prompt(data.exercise, data.showsPrediction) : "";
  const isPredict = data.kind === "predict";

  function render() {
    const state = store.get(key, null);
    const choice = state && data.options.find((o) => o.key === state.choice);
    for (const b of buttons) {
      b.disabled = isPredict && Boolean(choice);
      b.setAttribute("aria-pressed", choice && b.dataset.key === choice.key ? "true" : "false");
    }
    if (!choice) {
      delete root.dataset.verdict;
      feedback.textContent = isPredict ? "Commit to an answer before reading on." : "";
    } else if (isPredict) {
      root.dataset.verdict = "committed";
      feedback.textContent = `Your prediction: ${choice.key}. ${choice.text}. Read on to see whether it holds.`;
    } else {
      root.dataset.verdict = choice.correct ? "correct" : "incorrect";
      feedback.textContent = choiceFeedback(choice.correct, choice.feedback);
    }
    feedback.className = `tl-feedback ${choice && !isPredict ? `tl-${root.dataset.verdict}` : ""}`;
    if (predictKey) {
      const p = store.get(predictKey, null);
      predicted.textContent = p && p.choice ? `Before reading, you predicted: ${p.choice}. ${p.text || ""}`
        : "You did not commit a prediction for this question earlier on the page.";
    }
  }

  for (const b of buttons) {
    b.disabled = false;
    b.addEventListener("click", () => {
      const option = data.options.find((o) => o.key === b.dataset.key);
      if (isPredict && store.get(key, null)) return; // a prediction is committed once
      store.set(key, { choice: option.key, text: option.text, at: Date.now() });
      render();
      document.dispatchEvent(new CustomEvent("tl:choice", { detail: { exercise: data.exercise, prompt: data.prompt } }));
    });
  }
  document.addEventListener("tl:choice", (e) => {
    if (predictKey && e.detail.prompt === data.showsPrediction) render();
  });
  render();
}

/** Mount content that opens once a predict-first question is committed. */
export function mountReveal(root, store) {
  const key = keys.prompt(root.dataset.exercise, root.dataset.after);
  const update = () => {
    const open = Boolean(store.get(key, null));
    root.classList.toggle("tl-open", open);
    root.querySelector(".tl-reveal-body").hidden = !open;
    root.querySelector(".tl-reveal-note").hidden = open;
  };
  document.addEventListener("tl:choice", (e) => {
    if (e.detail.prompt === root.dataset.after && e.detail.exercise === root.dataset.exercise) update();
  });
  update();
}
