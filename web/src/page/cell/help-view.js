/**
 * Help when a check fails (cell/help.js has the rules): the known mistake the failure looks like
 * (`[data-diagnosis]`, one `[data-pitfall]` per pitfall: the page's pitfall number, else the mutant's name), the
 * hints revealed so far (`[data-hint]`) and the button for the next one, the reference when the exercise allows
 * it after attempts (`[data-reveal]`, behind a confirmation), and the learner's switch for naming known mistakes.
 * Hints are the page's own HTML (mdwidgets renders them at build time, maths included), copied in when revealed;
 * everything else is text.
 */
import { el } from "../dom.js";
import { mayReveal } from "./help.js";

/**
 * @param {{hintNodes: Element[], revealAfter: number, commands: {nextHint: Function, askReveal: Function,
 *          reveal: Function, cancelReveal: Function, setDiagnoses: (on: boolean) => void}}} options
 */
export function createHelpView({ hintNodes, revealAfter, commands }) {
  const total = hintNodes.length;
  const dom = el("section", { class: "tl-help", hidden: "", "aria-label": "Help with this exercise" });
  const diagnosis = el("div", { class: "tl-diagnosis", "data-diagnosis": "", hidden: "", "aria-live": "polite" });
  const hintList = el("div", { class: "tl-hints" });
  const hintButton = el("button", { type: "button", class: "md-button tl-hint-next" });
  const revealBox = el("div", { class: "tl-reveal-box", hidden: "" });
  const rule = el("p", { class: "tl-reveal-rule" });
  const revealButton = el("button", { type: "button", class: "md-button tl-reveal" }, "Show the reference…");
  const confirm = el("div", { class: "tl-confirm", hidden: "" });
  const yes = el("button", { type: "button", class: "md-button tl-confirm-yes" }, "Yes, show the reference");
  const no = el("button", { type: "button", class: "md-button tl-confirm-no" }, "Not yet");
  confirm.append(el("p", {}, "Seeing the reference is recorded on your progress page, and it does not count as a "
    + "pass: your own code still has to pass the hidden tests. Show it now?"), yes, no);
  const reference = el("details", { class: "tl-reveal-shown", "data-reveal": "", open: "", hidden: "" });
  const referenceCode = el("pre", { class: "tl-diff-body", tabindex: "0", role: "region", "aria-label": "The reference solution" });
  reference.append(el("summary", {}, "The reference solution (you chose to see it; it is not a pass)"), referenceCode);
  revealBox.append(rule, revealButton, confirm, reference);
  const toggle = el("input", { type: "checkbox", class: "tl-diagnoses" });
  const toggleLabel = el("label", { class: "tl-diagnoses-label" });
  toggleLabel.append(toggle, " Name the known mistake a failing check looks like");
  dom.append(diagnosis, hintList, hintButton, revealBox, toggleLabel);

  const on = [
    [hintButton, "click", () => commands.nextHint()],
    [revealButton, "click", () => commands.askReveal()],
    [yes, "click", () => commands.reveal()],
    [no, "click", () => commands.cancelReveal()],
    [toggle, "change", () => commands.setDiagnoses(toggle.checked)],
  ];
  for (const [node, type, fn] of on) node.addEventListener(type, fn);

  function renderHints(shown) {
    while (hintList.children.length < shown) {
      const i = hintList.children.length;
      const item = el("div", { class: "tl-hint-item", "data-hint": String(i + 1) });
      const body = el("div", { class: "tl-hint-body" });
      body.append(...[...hintNodes[i].childNodes].map((n) => n.cloneNode(true)));
      item.append(el("p", { class: "tl-hint-title" }, `Hint ${i + 1} of ${total}`), body);
      hintList.append(item);
    }
    while (hintList.children.length > shown) hintList.lastChild.remove();
  }

  return {
    dom,
    update(state, prev) {
      const { help } = state;
      const failing = state.result && state.result.status !== "passed" && !state.busy;
      const found = failing && Array.isArray(state.result.diagnosis) ? state.result.diagnosis : [];
      const changed = !prev || state.help !== prev.help || state.result !== prev.result || state.busy !== prev.busy
        || state.diagnoses !== prev.diagnoses || state.confirming !== prev.confirming || state.reference !== prev.reference;
      if (!changed) return;
      dom.hidden = !(help.failed > 0 || help.hints > 0 || help.revealed > 0 || found.length > 0);
      renderDiagnosis(diagnosis, state.diagnoses ? found : []);
      renderHints(Math.min(help.hints, total));
      hintButton.hidden = help.hints >= total || !(help.failed > 0 || help.hints > 0);
      hintButton.textContent = `Show ${help.hints ? "the next hint" : "a hint"} (${help.hints + 1} of ${total})`;
      toggle.checked = state.diagnoses;
      revealBox.hidden = !(revealAfter > 0);
      const allowed = mayReveal(help, { revealAfter, hints: total });
      rule.textContent = help.revealed ? "" : revealRule(help, revealAfter, total);
      rule.hidden = Boolean(help.revealed);
      revealButton.hidden = Boolean(help.revealed) || !allowed || state.confirming;
      confirm.hidden = !state.confirming || Boolean(help.revealed);
      reference.hidden = state.reference === null;
      if (state.reference !== null && referenceCode.textContent !== state.reference) referenceCode.textContent = state.reference;
      if (state.confirming && prev && !prev.confirming) no.focus();
    },
    destroy() {
      for (const [node, type, fn] of on) node.removeEventListener(type, fn);
    },
  };
}

/** What the learner must still do before the reference can be shown. */
function revealRule(help, after, total) {
  const checks = `${Math.min(help.failed, after)} of ${after} failed checks`;
  const hints = total ? `, ${Math.min(help.hints, total)} of ${total} hints` : "";
  return `The reference can be shown after ${after} failed check${after === 1 ? "" : "s"}`
    + `${total ? " and every hint" : ""} (so far: ${checks}${hints}).`;
}

/** The known mistakes a failure looks like, best first; nothing when there are none. */
function renderDiagnosis(box, found) {
  box.hidden = found.length === 0;
  if (!found.length) {
    box.replaceChildren();
    return;
  }
  const doc = box.ownerDocument;
  const list = el("ul");
  for (const item of found) {
    const li = el("li", { "data-pitfall": item.number ? String(item.number) : item.mutants[0] || "" });
    if (item.number) {
      const name = `pitfall ${item.number}`;
      const anchor = doc.getElementById(`pitfall-${item.number}`);
      li.append(anchor ? el("a", { href: `#pitfall-${item.number}` }, name) : el("strong", {}, name), ": ");
    }
    li.append([item.pitfall, ...(item.also || [])].join("; or: "));
    list.append(li);
  }
  const head = found.length === 1 ? "This looks like a known mistake:" : "This looks like one of these known mistakes:";
  box.replaceChildren(el("p", { class: "tl-diagnosis-head" }, head), list);
}
